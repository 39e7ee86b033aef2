<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * Media types for common file extensions, for serving files.
 *
 * @internal
 */
final class MimeTypes
{
    public const DEFAULT = 'application/octet-stream';

    private const TYPES = [
        'html' => 'text/html; charset=utf-8', 'htm' => 'text/html; charset=utf-8',
        'css' => 'text/css; charset=utf-8', 'js' => 'text/javascript; charset=utf-8',
        'mjs' => 'text/javascript; charset=utf-8', 'json' => 'application/json',
        'txt' => 'text/plain; charset=utf-8', 'csv' => 'text/csv; charset=utf-8',
        'xml' => 'application/xml', 'svg' => 'image/svg+xml', 'png' => 'image/png',
        'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg', 'gif' => 'image/gif', 'webp' => 'image/webp',
        'avif' => 'image/avif', 'ico' => 'image/x-icon', 'woff' => 'font/woff', 'woff2' => 'font/woff2',
        'ttf' => 'font/ttf', 'otf' => 'font/otf', 'pdf' => 'application/pdf', 'zip' => 'application/zip',
        'gz' => 'application/gzip', 'wasm' => 'application/wasm', 'mp4' => 'video/mp4',
        'webm' => 'video/webm', 'mp3' => 'audio/mpeg', 'ogg' => 'audio/ogg', 'wav' => 'audio/wav',
        'map' => 'application/json', 'md' => 'text/markdown; charset=utf-8',
    ];

    public static function fromPath(string $path): string
    {
        $extension = \strtolower(\pathinfo($path, \PATHINFO_EXTENSION));

        return self::TYPES[$extension] ?? self::DEFAULT;
    }
}
