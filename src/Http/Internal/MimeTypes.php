<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * Media types for common file extensions, for serving files. text/* types carry
 * "; charset=utf-8"; JSON (always UTF-8, no charset parameter defined), formats that declare
 * their own encoding (XML, SVG) and binary ones do not.
 *
 * @internal
 */
final class MimeTypes
{
    public const DEFAULT = 'application/octet-stream';

    private const TYPES = [
        // text
        'html' => 'text/html; charset=utf-8', 'htm' => 'text/html; charset=utf-8',
        'css' => 'text/css; charset=utf-8', 'js' => 'text/javascript; charset=utf-8',
        'mjs' => 'text/javascript; charset=utf-8', 'cjs' => 'text/javascript; charset=utf-8',
        'txt' => 'text/plain; charset=utf-8', 'text' => 'text/plain; charset=utf-8',
        'log' => 'text/plain; charset=utf-8', 'csv' => 'text/csv; charset=utf-8',
        'tsv' => 'text/tab-separated-values; charset=utf-8', 'md' => 'text/markdown; charset=utf-8',
        'markdown' => 'text/markdown; charset=utf-8', 'ics' => 'text/calendar; charset=utf-8',
        'vtt' => 'text/vtt; charset=utf-8', 'json' => 'application/json',
        'map' => 'application/json', 'jsonld' => 'application/ld+json',
        'webmanifest' => 'application/manifest+json', 'yaml' => 'application/yaml',
        'yml' => 'application/yaml', 'xml' => 'application/xml', 'xsl' => 'application/xml',
        'xhtml' => 'application/xhtml+xml', 'rss' => 'application/rss+xml', 'atom' => 'application/atom+xml',
        // images
        'svg' => 'image/svg+xml', 'png' => 'image/png', 'apng' => 'image/apng', 'jpg' => 'image/jpeg',
        'jpeg' => 'image/jpeg', 'gif' => 'image/gif', 'webp' => 'image/webp', 'avif' => 'image/avif',
        'ico' => 'image/x-icon', 'bmp' => 'image/bmp', 'tif' => 'image/tiff', 'tiff' => 'image/tiff',
        // fonts
        'woff' => 'font/woff', 'woff2' => 'font/woff2', 'ttf' => 'font/ttf', 'otf' => 'font/otf',
        // audio and video
        'mp4' => 'video/mp4', 'm4v' => 'video/mp4', 'webm' => 'video/webm', 'ogv' => 'video/ogg',
        'mov' => 'video/quicktime', 'mp3' => 'audio/mpeg', 'm4a' => 'audio/mp4', 'aac' => 'audio/aac',
        'ogg' => 'audio/ogg', 'oga' => 'audio/ogg', 'opus' => 'audio/ogg', 'wav' => 'audio/wav',
        'flac' => 'audio/flac',
        // documents and archives
        'pdf' => 'application/pdf', 'zip' => 'application/zip', 'gz' => 'application/gzip',
        'tar' => 'application/x-tar', 'bz2' => 'application/x-bzip2', 'xz' => 'application/x-xz',
        '7z' => 'application/x-7z-compressed', 'wasm' => 'application/wasm', 'epub' => 'application/epub+zip',
    ];

    public static function fromPath(string $path): string
    {
        $extension = \strtolower(\pathinfo($path, \PATHINFO_EXTENSION));

        return self::TYPES[$extension] ?? self::DEFAULT;
    }
}
