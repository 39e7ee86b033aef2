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
 * @internal
 */
final class FormData
{
    /**
     * @return array<mixed>
     * @throws HttpException 400 when there are more than $maxFields pairs
     */
    public static function parseUrlEncoded(string $data, int $maxFields): array
    {
        if ($data === '') {
            return [];
        }
        if (\substr_count($data, '&') >= self::fieldLimit($maxFields)) {
            throw new HttpException(400, 'Too many form fields');
        }
        \parse_str($data, $result);

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
        $tree = [];
        foreach ($files as [$name, $file]) {
            self::insertFile($tree, $name, $file);
        }

        return [self::fromPairs($fields, $limits->maxFormFields), $tree, $tempFiles];
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
     * Places $file in $tree under a field name such as "avatar", "docs[]" or "a[b][c]".
     *
     * @param array<string, UploadedFile|array<mixed>> $tree
     */
    public static function insertFile(array &$tree, string $name, UploadedFile $file): void
    {
        $open = \strpos($name, '[');
        if ($open === false || $open === 0 || !\str_ends_with($name, ']')) {
            $tree[$name] = $file;

            return;
        }
        $keys = \explode('][', \substr($name, $open + 1, -1));
        $node = &$tree;
        $node = &$node[\substr($name, 0, $open)];
        foreach ($keys as $key) {
            if (!\is_array($node)) {
                $node = [];
            }
            if ($key === '') {
                $node[] = null;
                \end($node);
                $key = \key($node);
            }
            $node = &$node[$key];
        }
        $node = $file;
    }

    private static function fieldLimit(int $maxFields): int
    {
        $ini = (int) \ini_get('max_input_vars');

        return $ini > 0 ? \min($maxFields, $ini) : $maxFields;
    }
}
