<?php

declare(strict_types=1);

namespace Petrel\Web\Classic;

/**
 * Re-encodes $_POST and $_FILES as a multipart/form-data body (in a php://temp stream), for
 * SAPIs that consumed the original one. Field names are flattened back to their bracket
 * form ("tags[0]", "docs[a]"), which parses to the same nesting.
 *
 * @internal
 */
final class MultipartBody
{
    /**
     * @param array<mixed> $post
     * @param array<mixed> $files
     * @return array{resource, string, int} the body, its Content-Type, its length
     */
    public static function build(array $post, array $files): array
    {
        $boundary = '----petrel' . \bin2hex(\random_bytes(12));
        $body = \fopen('php://temp', 'w+b') ?: throw new \RuntimeException('Cannot open php://temp');
        foreach (self::fields($post, '') as [$name, $value]) {
            \fwrite($body, "--{$boundary}\r\nContent-Disposition: form-data; name=\"" . self::quote($name) . "\"\r\n\r\n{$value}\r\n");
        }
        foreach ($files as $name => $spec) {
            if (\is_array($spec)) {
                self::writeFiles($body, $boundary, (string) $name, $spec);
            }
        }
        \fwrite($body, "--{$boundary}--\r\n");
        $length = \ftell($body);
        \rewind($body);

        return [$body, "multipart/form-data; boundary={$boundary}", (int) $length];
    }

    /**
     * @param array<mixed> $values
     * @return iterable<array{string, string}>
     */
    private static function fields(array $values, string $prefix): iterable
    {
        foreach ($values as $key => $value) {
            $name = $prefix === '' ? (string) $key : "{$prefix}[{$key}]";
            if (\is_array($value)) {
                yield from self::fields($value, $name);
            } elseif (\is_scalar($value)) {
                yield [$name, (string) $value];
            }
        }
    }

    /**
     * One $_FILES entry: a single file, or (for "docs[]"-style names) arrays of names,
     * types, tmp_names, errors and sizes with the same keys, to walk together.
     *
     * @param resource $body
     * @param array<mixed> $spec
     */
    private static function writeFiles($body, string $boundary, string $name, array $spec): void
    {
        if (\is_array($spec['name'] ?? null)) {
            foreach (\array_keys($spec['name']) as $key) {
                $sub = [];
                foreach ($spec as $field => $values) {
                    $sub[$field] = \is_array($values) ? ($values[$key] ?? null) : null;
                }
                self::writeFiles($body, $boundary, "{$name}[{$key}]", $sub);
            }

            return;
        }
        $ok = ($spec['error'] ?? \UPLOAD_ERR_NO_FILE) === \UPLOAD_ERR_OK && \is_string($spec['tmp_name'] ?? null) && \is_file($spec['tmp_name']);
        $filename = $ok ? (string) ($spec['name'] ?? 'upload') : '';
        $type = $ok && \is_string($spec['type'] ?? null) && $spec['type'] !== '' ? $spec['type'] : 'application/octet-stream';
        \fwrite($body, "--{$boundary}\r\nContent-Disposition: form-data; name=\"" . self::quote($name) . '"; filename="'
            . self::quote($filename) . "\"\r\nContent-Type: " . \str_replace(["\r", "\n"], '', $type) . "\r\n\r\n");
        if ($ok) {
            $file = \fopen((string) $spec['tmp_name'], 'rb');
            if ($file !== false) {
                \stream_copy_to_stream($file, $body);
                \fclose($file);
            }
        }
        \fwrite($body, "\r\n");
    }

    private static function quote(string $value): string
    {
        return \addcslashes(\str_replace(["\r", "\n"], ' ', $value), '"\\');
    }
}
