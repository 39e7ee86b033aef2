<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\UploadedFile;

/**
 * Builds PHP-style nested arrays ("a[b][]=1") from query strings, urlencoded bodies and
 * multipart parts, with the same rules as $_GET/$_POST/$_FILES (parse_str semantics).
 *
 * Where PHP would drop input and log a warning, a request is rejected with 400 instead and
 * nothing reaches the log (a client must not be able to write to it once per request):
 *  - more pairs than maxFormFields or the max_input_vars ini setting (1000);
 *  - a field name nested deeper than max_input_nesting_level (64): "a[1][2]...[65]=",
 *    brackets percent-encoded or not, files' names included.
 * Rejecting rather than bounding (dropping the field as PHP does) keeps a form from being
 * silently read as something else than was sent. parse_str() runs under an error handler
 * that turns any warning it gives into that 400, so a limit PHP adds later is covered too.
 *
 * @internal
 */
final class FormData
{
    /**
     * @return array<mixed>
     * @throws HttpException 400 with more than $maxFields pairs or a name nested too deep
     */
    public static function parseUrlEncoded(string $data, int $maxFields): array
    {
        if ($data === '') {
            return [];
        }
        if (self::separatorCount($data) >= self::fieldLimit($maxFields)) {
            throw new HttpException(400, 'Too many form fields');
        }
        $warning = null;
        \set_error_handler(static function (int $severity, string $message) use (&$warning): bool {
            $warning ??= $message;

            return true;
        });
        try {
            \parse_str($data, $result);
        } finally {
            \restore_error_handler();
        }
        if ($warning !== null) {
            throw new HttpException(400, \str_contains($warning, 'nesting level')
                ? 'Form field name nested too deep'
                : 'Form data over PHP input limits');
        }

        return $result;
    }

    /**
     * Fields and files of a multipart/form-data body, and the owner of the files' temp files.
     *
     * @param string|resource $body
     * @return array{array<mixed>, array<string, UploadedFile|array<mixed>>, TempFiles}
     * @throws HttpException 400/413 for a malformed or oversized form
     */
    public static function parseMultipart(mixed $body, string $contentType, HttpLimits $limits): array
    {
        $parser = new MultipartParser($limits, $body, MultipartParser::boundary($contentType));
        ['fields' => $fields, 'files' => $files, 'tempFiles' => $tempFiles] = $parser->parse();

        return [self::fromPairs($fields, $limits->maxFormFields), self::fileTree($files, $limits->maxFormFields), $tempFiles];
    }

    /**
     * @param list<array{string, string}> $pairs name => value in arrival order
     * @return array<mixed>
     */
    public static function fromPairs(array $pairs, int $maxFields): array
    {
        $encoded = [];
        foreach ($pairs as [$name, $value]) {
            $encoded[] = \rawurlencode($name) . '=' . \rawurlencode($value);
        }

        return self::parseUrlEncoded(\implode('&', $encoded), $maxFields);
    }

    /**
     * The files nested by their field names ("avatar", "docs[]", "a[b][c]") as the fields
     * are, so by parse_str's rules too: "user.avatar" is "user_avatar", as in $_POST and
     * $_FILES, and a name nested too deep is a 400. Each file's number in the list stands
     * in for it while parse_str builds the tree.
     *
     * @param list<array{string, UploadedFile}> $files
     * @return array<string, UploadedFile|array<mixed>>
     */
    private static function fileTree(array $files, int $maxFields): array
    {
        if ($files === []) {
            return [];
        }
        $tree = self::fromPairs(\array_map(static fn (array $file, int $i): array => [$file[0], (string) $i], $files, \array_keys($files)), $maxFields);
        \array_walk_recursive($tree, static function (mixed &$leaf) use ($files): void {
            $leaf = $files[(int) $leaf][1];
        });

        /** @var array<string, UploadedFile|array<mixed>> $tree */
        return $tree;
    }

    private static function fieldLimit(int $maxFields): int
    {
        $ini = (int) \ini_get('max_input_vars');

        return $ini > 0 ? \min($maxFields, $ini) : $maxFields;
    }

    /** How many bytes split pairs: '&', or every byte of the arg_separator.input ini setting. */
    private static function separatorCount(string $data): int
    {
        $separators = (string) \ini_get('arg_separator.input');
        if ($separators === '&' || $separators === '') {
            return \substr_count($data, '&');
        }

        return \strlen($data) - \strlen(\str_replace(\str_split($separators), '', $data));
    }
}
