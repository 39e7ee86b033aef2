<?php

declare(strict_types=1);

namespace Petrel\Http;

use Petrel\Http\Internal\ByteRange;
use Petrel\Http\Internal\Preconditions;
use Petrel\Http\Internal\StaticFile;
use Petrel\Http\Internal\StaticFileResolver;

/**
 * Serves files from a directory in front of another handler: a GET or HEAD whose path names
 * a readable regular file under $root gets the file; every other request goes to $next
 * unchanged. That includes paths that are refused: percent-encoded NUL, "." or ".."
 * segments, dotfiles (unless $dotfiles; ".well-known" always passes), and symlinks whose
 * target lies outside $root (or is hidden) — the app answers them, typically with a 404;
 * nothing outside $root is ever served. Other methods on a file's path also go to $next.
 *
 * A directory URL ending in "/" serves its $index file; without the "/" it is redirected
 * (301) to the canonical path with it, so the page's relative links work; a directory with
 * no index goes to $next.
 *
 * Responses carry Content-Type (from the extension, charset=utf-8 for text), a strong ETag
 * made from mtime and size ("mtime-size" in hex, as nginx makes it: a rewrite to the same
 * size within the same second keeps the tag), Last-Modified, Accept-Ranges: bytes and,
 * with $maxAge, Cache-Control: max-age. Conditional requests follow RFC 9110 §13.2.2:
 * If-Match / If-Unmodified-Since (412), If-None-Match (weak comparison, "*") and, only
 * without it, If-Modified-Since (304 with the validators and no body). A GET with one range
 * ("a-b", "a-", "-n") gets 206 with Content-Range, an unsatisfiable one 416 with a
 * Content-Range that gives only the size; several ranges are ignored and the whole file is
 * sent with 200 (RFC 9110 §14.2 allows it; no multipart/byteranges), and so is a Range
 * that does not parse. If-Range takes an ETag (strong comparison) or a date. HEAD ignores
 * Range, as RFC 9110 defines ranges for GET only.
 *
 * stat() results (misses too) are cached for $statCacheTtl seconds, so a file changed on
 * disk may be served with its old validators for up to that long. File contents are not
 * cached: the connection streams them from disk (FileBody) for each response.
 */
final class StaticFiles implements RequestHandler
{
    private readonly StaticFileResolver $files;

    private readonly ?string $cacheControl;

    /**
     * @param string $root the directory to serve
     * @param RequestHandler $next answers everything that is not a file
     * @param string|null $index file name served for a directory URL; null for none
     * @param bool $dotfiles serve names starting with "." (".env", ".git/") too
     * @param int|null $maxAge Cache-Control max-age in seconds; no Cache-Control when null
     * @param float $statCacheTtl seconds a stat() result is reused; 0 to stat every request
     * @throws \ValueError when $root is not a directory or an option is out of range
     */
    public function __construct(
        string $root,
        private readonly RequestHandler $next,
        private readonly ?string $index = 'index.html',
        bool $dotfiles = false,
        ?int $maxAge = null,
        float $statCacheTtl = 1.0,
    ) {
        $realRoot = \realpath($root);
        if ($realRoot === false || !\is_dir($realRoot)) {
            throw new \ValueError(\sprintf('Static files root "%s" is not a directory', $root));
        }
        if ($index !== null && ($index === '' || \str_contains($index, '/') || $index[0] === '.')) {
            throw new \ValueError(\sprintf('Index "%s" must be a plain file name', $index));
        }
        if (($maxAge !== null && $maxAge < 0) || $statCacheTtl < 0) {
            throw new \ValueError('maxAge and statCacheTtl must not be negative');
        }
        $this->files = new StaticFileResolver($realRoot, $dotfiles, $statCacheTtl);
        $this->cacheControl = $maxAge === null ? null : "max-age={$maxAge}";
    }

    public function handle(Request $request): Response
    {
        $method = $request->getMethod();
        if ($method !== 'GET' && $method !== 'HEAD') {
            return $this->next->handle($request);
        }
        $path = $request->getPath();
        $relative = $this->files->relativePath($path);
        $file = $relative === null ? null : $this->files->lookup($relative);
        if ($file === null || $relative === null) {
            return $this->next->handle($request);
        }
        if ($file->isDirectory) {
            $indexPath = $this->index === null ? null : \ltrim("{$relative}/{$this->index}", '/');
            $index = $indexPath === null ? null : $this->files->lookup($indexPath);
            if ($index === null || $indexPath === null || $index->isDirectory) {
                return $this->next->handle($request);
            }
            if (!\str_ends_with($path, '/')) {
                return $this->redirectToDirectory($request, $relative);
            }
            [$file, $relative] = [$index, $indexPath];
        } elseif (\str_ends_with($path, '/')) {
            return $this->next->handle($request); // "/file.txt/" names no file
        }
        try {
            return $this->serve($request, $file);
        } catch (\RuntimeException | \ValueError) {
            // Changed since it was cached (gone, unreadable, shorter than a range): look again.
            $this->files->forget($relative);
            $file = $this->files->lookup($relative);

            return $file === null || $file->isDirectory ? $this->next->handle($request) : $this->serve($request, $file);
        }
    }

    private function serve(Request $request, StaticFile $file): Response
    {
        $precondition = Preconditions::evaluate($request, $file);
        if ($precondition === Status::NOT_MODIFIED) {
            return new Response(Status::NOT_MODIFIED, $this->validators($file));
        }
        if ($precondition !== 0) {
            return Response::text("412 Precondition Failed\n", $precondition);
        }
        $headers = ['Content-Type' => $file->contentType, 'Accept-Ranges' => 'bytes'] + $this->validators($file);
        $range = $request->getMethod() === 'GET' ? $request->getHeader('range') : null;
        if ($range !== null && Preconditions::rangeApplies($request, $file)) {
            $byteRange = ByteRange::parse($range, $file->size);
            if ($byteRange === false) {
                return Response::text("416 Range Not Satisfiable\n", Status::RANGE_NOT_SATISFIABLE)
                    ->withHeader('Content-Range', "bytes */{$file->size}")
                    ->withHeader('Accept-Ranges', 'bytes');
            }
            if ($byteRange !== null) {
                $headers['Content-Range'] = $byteRange->contentRange($file->size);

                return new Response(
                    Status::PARTIAL_CONTENT,
                    $headers,
                    new FileBody($file->path, $byteRange->start, $byteRange->length()),
                );
            }
        }

        return new Response(Status::OK, $headers, new FileBody($file->path, 0, $file->size));
    }

    /** @return array<string, string> the headers a 304 repeats from the 200 */
    private function validators(StaticFile $file): array
    {
        $headers = ['ETag' => $file->etag, 'Last-Modified' => $file->lastModified];
        if ($this->cacheControl !== null) {
            $headers['Cache-Control'] = $this->cacheControl;
        }

        return $headers;
    }

    /** 301 to the directory's canonical URL with a trailing slash (never "//host/..."). */
    private function redirectToDirectory(Request $request, string $relative): Response
    {
        $location = '/' . \implode('/', \array_map(\rawurlencode(...), \explode('/', $relative))) . '/';
        $location = \str_replace('//', '/', $location);
        $query = $request->getQueryString();

        return Response::redirect($query === '' ? $location : "{$location}?{$query}", Status::MOVED_PERMANENTLY);
    }
}
