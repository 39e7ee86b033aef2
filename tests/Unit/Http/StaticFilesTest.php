<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\FileBody;
use Petrel\Http\Internal\ByteRange;
use Petrel\Http\Internal\HttpDate;
use Petrel\Http\Internal\MimeTypes;
use Petrel\Http\Internal\Preconditions;
use Petrel\Http\Internal\StaticFile;
use Petrel\Http\Internal\StaticFileResolver;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\StaticFiles;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(StaticFiles::class)]
#[CoversClass(StaticFileResolver::class)]
#[CoversClass(StaticFile::class)]
#[CoversClass(ByteRange::class)]
#[CoversClass(Preconditions::class)]
#[CoversClass(HttpDate::class)]
#[CoversClass(MimeTypes::class)]
final class StaticFilesTest extends TestCase
{
    private const MTIME = 1_700_000_000; // Tue, 14 Nov 2023 22:13:20 GMT
    private const TEXT = '0123456789abcdefghij';

    private string $base;
    private string $root;

    protected function setUp(): void
    {
        $this->base = \sys_get_temp_dir() . '/petrel-static-' . \bin2hex(\random_bytes(6));
        $this->root = "{$this->base}/public";
        $files = [
            'a.txt' => self::TEXT, 'index.html' => '<h1>home</h1>', 'style.css' => 'b{}', 'app.js' => '1',
            'data.json' => '{}', 'logo.png' => "\x89PNG", 'icon.svg' => '<svg/>', 'README' => 'x', 'UP.TXT' => 'u',
            'empty.bin' => '', 'a b+c.txt' => 'spaced', '.env' => 'SECRET=1', '.git/config' => 'git',
            '.well-known/acme' => 'token', 'sub/index.html' => 'sub home', 'sub/deep.txt' => 'deep',
            'noindex/file.txt' => 'f', '../outside/secret.txt' => 'outside secret', '../public-evil/x.txt' => 'evil',
        ];
        foreach ($files as $name => $content) {
            $path = "{$this->root}/{$name}";
            @\mkdir(\dirname($path), 0777, true);
            \file_put_contents($path, $content);
            \touch($path, self::MTIME);
        }
        \symlink("{$this->base}/outside/secret.txt", "{$this->root}/link-out.txt");
        \symlink("{$this->base}/outside", "{$this->root}/dir-out");
        \symlink("{$this->root}/sub/deep.txt", "{$this->root}/link-in.txt");
        \symlink("{$this->root}/.env", "{$this->root}/env.txt");
        \symlink("{$this->root}/a.txt", "{$this->root}/alias.css");
    }

    protected function tearDown(): void
    {
        $items = new \RecursiveIteratorIterator(
            new \RecursiveDirectoryIterator($this->base, \FilesystemIterator::SKIP_DOTS),
            \RecursiveIteratorIterator::CHILD_FIRST,
        );
        foreach ($items as $item) {
            \assert($item instanceof \SplFileInfo);
            $item->isDir() && !$item->isLink() ? \rmdir($item->getPathname()) : \unlink($item->getPathname());
        }
        \rmdir($this->base);
    }

    /** @param array<string, string> $headers */
    private function get(string $target, array $headers = [], string $method = 'GET', ?StaticFiles $files = null): Response
    {
        $files ??= $this->files();

        return $files->handle(Request::create($method, $target, $headers));
    }

    private function files(mixed ...$options): StaticFiles
    {
        $app = new ClosureHandler(static fn (Request $r): Response => Response::text('app', 404)->withHeader('X-App', $r->getPath()));

        return new StaticFiles($this->root, $app, ...$options);
    }

    private static function body(Response $response): string
    {
        $body = $response->getBody();
        if (\is_string($body)) {
            return $body;
        }
        self::assertInstanceOf(FileBody::class, $body);

        $length = \max(0, $body->getLength());

        return (string) \file_get_contents($body->getPath(), false, null, $body->getOffset(), $length);
    }

    private static function etag(int $size): string
    {
        return \sprintf('"%x-%x"', self::MTIME, $size);
    }

    public function testServesAFileWithItsValidators(): void
    {
        $response = $this->get('/a.txt?v=1');
        self::assertSame(200, $response->getStatus());
        self::assertSame(self::TEXT, self::body($response));
        self::assertSame('text/plain; charset=utf-8', $response->getHeader('Content-Type'));
        self::assertSame('"6553f100-14"', $response->getHeader('ETag'), 'strong, mtime-size in hex');
        self::assertSame('Tue, 14 Nov 2023 22:13:20 GMT', $response->getHeader('Last-Modified'));
        self::assertSame('bytes', $response->getHeader('Accept-Ranges'));
        self::assertNull($response->getHeader('Cache-Control'));
        self::assertSame('max-age=3600', $this->get('/a.txt', files: $this->files(maxAge: 3600))->getHeader('Cache-Control'));
        self::assertSame('spaced', self::body($this->get('/a%20b+c.txt')), 'percent-decoded, "+" kept');
        self::assertSame('deep', self::body($this->get('/link-in.txt')), 'a symlink inside the root is followed');
        self::assertSame('deep', self::body($this->get('//sub///deep.txt')), 'empty segments collapse');
    }

    /** @return iterable<string, array{string, string}> */
    public static function mimeTypes(): iterable
    {
        yield 'html' => ['/index.html', 'text/html; charset=utf-8'];
        yield 'css' => ['/style.css', 'text/css; charset=utf-8'];
        yield 'js' => ['/app.js', 'text/javascript; charset=utf-8'];
        yield 'json' => ['/data.json', 'application/json'];
        yield 'png' => ['/logo.png', 'image/png'];
        yield 'svg' => ['/icon.svg', 'image/svg+xml'];
        yield 'no extension' => ['/README', 'application/octet-stream'];
        yield 'upper-case extension' => ['/UP.TXT', 'text/plain; charset=utf-8'];
        yield 'symlink: the requested name counts' => ['/alias.css', 'text/css; charset=utf-8'];
    }

    #[DataProvider('mimeTypes')]
    public function testContentTypeComesFromTheExtension(string $target, string $type): void
    {
        self::assertSame($type, $this->get($target)->getHeader('Content-Type'));
    }

    /** @return iterable<string, array{string}> */
    public static function refusedPaths(): iterable
    {
        yield 'dot-dot' => ['/../outside/secret.txt'];
        yield 'dot-dot to /etc/passwd' => ['/../../../../../../etc/passwd'];
        yield 'encoded dot-dot' => ['/%2e%2e/outside/secret.txt'];
        yield 'encoded dot-dot and slash' => ['/%2E%2E%2Foutside%2Fsecret.txt'];
        yield 'dot-dot that stays inside' => ['/sub/../a.txt'];
        yield 'dot segment' => ['/./a.txt'];
        yield 'sibling directory sharing the prefix' => ['/../public-evil/x.txt'];
        yield 'encoded NUL' => ['/a.txt%00.html'];
        yield 'symlink to a file outside' => ['/link-out.txt'];
        yield 'symlink to a directory outside' => ['/dir-out/secret.txt'];
        yield 'dotfile' => ['/.env'];
        yield 'encoded dotfile' => ['/%2eenv'];
        yield 'file in a dot directory' => ['/.git/config'];
        yield 'symlink to a dotfile' => ['/env.txt'];
        yield 'missing file' => ['/nope.txt'];
        yield 'file with a trailing slash' => ['/a.txt/'];
        yield 'directory without index' => ['/noindex/'];
        yield 'asterisk-form' => ['*'];
    }

    #[DataProvider('refusedPaths')]
    public function testRefusedPathsGoToTheApp(string $target): void
    {
        $files = $this->files();
        $response = $files->handle(new Request('GET', $target, '1.1', ['host' => ['a']]));
        self::assertSame(404, $response->getStatus());
        self::assertNotNull($response->getHeader('X-App'), "{$target} reached the app");
        self::assertTrue(\is_file("{$this->base}/outside/secret.txt"), 'the outside file exists, so only the guard kept it out');
    }

    public function testDotfilesOption(): void
    {
        self::assertSame('SECRET=1', self::body($this->get('/.env', files: $this->files(dotfiles: true))));
        self::assertSame('SECRET=1', self::body($this->get('/env.txt', files: $this->files(dotfiles: true))));
        self::assertSame('token', self::body($this->get('/.well-known/acme')), '.well-known is served by default');
        self::assertSame(404, $this->get('/../outside/secret.txt', files: $this->files(dotfiles: true))->getStatus());
    }

    public function testDirectoriesServeTheirIndexOrRedirectToTheSlash(): void
    {
        self::assertSame('<h1>home</h1>', self::body($this->get('/')));
        self::assertSame('sub home', self::body($this->get('/sub/')));
        $redirect = $this->get('/sub?x=1');
        self::assertSame(301, $redirect->getStatus());
        self::assertSame('/sub/?x=1', $redirect->getHeader('Location'));
        self::assertSame('/sub/', $this->get('//sub')->getHeader('Location'), 'never a protocol-relative "//host/"');
        self::assertSame(404, $this->get('/noindex')->getStatus(), 'no index, no redirect');
        self::assertSame(404, $this->get('/sub/', files: $this->files(index: null))->getStatus());
    }

    public function testOtherMethodsGoToTheApp(): void
    {
        self::assertSame('/a.txt', $this->get('/a.txt', method: 'POST')->getHeader('X-App'));
        self::assertSame('/a.txt', $this->get('/a.txt', method: 'OPTIONS')->getHeader('X-App'));
    }

    public function testHeadHasTheHeadersOfGetAndIgnoresRange(): void
    {
        $response = $this->get('/a.txt', ['Range' => 'bytes=0-1'], 'HEAD');
        self::assertSame(200, $response->getStatus());
        self::assertSame(self::etag(20), $response->getHeader('ETag'));
        self::assertInstanceOf(FileBody::class, $response->getBody());
        self::assertSame(20, $response->getBody()->getLength(), 'the encoder sends it as Content-Length, no body');
    }

    /** @return iterable<string, array{array<string, string>, int}> */
    public static function conditionals(): iterable
    {
        $tag = self::etag(20);
        yield 'If-None-Match equal' => [['If-None-Match' => $tag], 304];
        yield 'If-None-Match in a list' => [['If-None-Match' => "\"x\", {$tag} , \"y\""], 304];
        yield 'If-None-Match weak matches (weak comparison)' => [['If-None-Match' => "W/{$tag}"], 304];
        yield 'If-None-Match star' => [['If-None-Match' => '*'], 304];
        yield 'If-None-Match other' => [['If-None-Match' => '"other"'], 200];
        yield 'If-Modified-Since equal' => [['If-Modified-Since' => 'Tue, 14 Nov 2023 22:13:20 GMT'], 304];
        yield 'If-Modified-Since later' => [['If-Modified-Since' => 'Wed, 15 Nov 2023 00:00:00 GMT'], 304];
        yield 'If-Modified-Since in RFC 850 form' => [['If-Modified-Since' => 'Tuesday, 14-Nov-23 22:13:20 GMT'], 304];
        yield 'If-Modified-Since in asctime form' => [['If-Modified-Since' => 'Tue Nov 14 22:13:20 2023'], 304];
        yield 'If-Modified-Since earlier' => [['If-Modified-Since' => 'Tue, 14 Nov 2023 22:13:19 GMT'], 200];
        yield 'If-Modified-Since invalid' => [['If-Modified-Since' => 'tomorrow'], 200];
        yield 'If-None-Match wins over If-Modified-Since' => [['If-None-Match' => '"other"', 'If-Modified-Since' => 'Wed, 15 Nov 2023 00:00:00 GMT'], 200];
        yield 'If-Match equal' => [['If-Match' => $tag], 200];
        yield 'If-Match star' => [['If-Match' => '*'], 200];
        yield 'If-Match other' => [['If-Match' => '"other"'], 412];
        yield 'If-Match weak (strong comparison)' => [['If-Match' => "W/{$tag}"], 412];
        yield 'If-Unmodified-Since earlier' => [['If-Unmodified-Since' => 'Mon, 13 Nov 2023 00:00:00 GMT'], 412];
        yield 'If-Unmodified-Since equal' => [['If-Unmodified-Since' => 'Tue, 14 Nov 2023 22:13:20 GMT'], 200];
    }

    /** @param array<string, string> $headers */
    #[DataProvider('conditionals')]
    public function testConditionalRequests(array $headers, int $status): void
    {
        $response = $this->get('/a.txt', $headers, files: $this->files(maxAge: 60));
        self::assertSame($status, $response->getStatus());
        if ($status === 304) {
            self::assertSame('', $response->getBody());
            self::assertSame(self::etag(20), $response->getHeader('ETag'));
            self::assertSame('Tue, 14 Nov 2023 22:13:20 GMT', $response->getHeader('Last-Modified'));
            self::assertSame('max-age=60', $response->getHeader('Cache-Control'));
            self::assertNull($response->getHeader('Content-Type'));
        }
        self::assertSame($status, $this->get('/a.txt', $headers, 'HEAD')->getStatus(), 'HEAD is conditional too');
    }

    /** @return iterable<string, array{string, int, ?string, string}> */
    public static function ranges(): iterable
    {
        yield 'first-last' => ['bytes=0-4', 206, 'bytes 0-4/20', '01234'];
        yield 'first-' => ['bytes=15-', 206, 'bytes 15-19/20', 'fghij'];
        yield 'suffix' => ['bytes=-3', 206, 'bytes 17-19/20', 'hij'];
        yield 'last clamped' => ['bytes=18-1000', 206, 'bytes 18-19/20', 'ij'];
        yield 'suffix longer than the file' => ['bytes=-1000', 206, 'bytes 0-19/20', self::TEXT];
        yield 'huge last' => ['bytes=0-99999999999999999999999', 206, 'bytes 0-19/20', self::TEXT];
        yield 'unit in capitals, spaces, empty list elements' => ['BYTES=, 1-1 ,', 206, 'bytes 1-1/20', '1'];
        yield 'first past the end' => ['bytes=20-', 416, 'bytes */20', ''];
        yield 'huge first' => ['bytes=99999999999999999999999-', 416, 'bytes */20', ''];
        yield 'empty suffix' => ['bytes=-0', 416, 'bytes */20', ''];
        yield 'several ranges: whole file' => ['bytes=0-1,5-6', 200, null, self::TEXT];
        yield 'last before first: ignored' => ['bytes=5-2', 200, null, self::TEXT];
        yield 'not a range' => ['bytes=abc', 200, null, self::TEXT];
        yield 'just a dash' => ['bytes=-', 200, null, self::TEXT];
        yield 'other unit' => ['items=0-1', 200, null, self::TEXT];
        yield 'negative' => ['bytes=--1', 200, null, self::TEXT];
    }

    #[DataProvider('ranges')]
    public function testRanges(string $range, int $status, ?string $contentRange, string $body): void
    {
        $response = $this->get('/a.txt', ['Range' => $range]);
        self::assertSame($status, $response->getStatus());
        self::assertSame($contentRange, $response->getHeader('Content-Range'));
        self::assertSame('bytes', $response->getHeader('Accept-Ranges'));
        if ($status !== 416) {
            self::assertSame($body, self::body($response));
        }
    }

    public function testRangeOfAnEmptyFileIsTheWholeFile(): void
    {
        $response = $this->get('/empty.bin', ['Range' => 'bytes=0-10']);
        self::assertSame(200, $response->getStatus());
        self::assertSame('', self::body($response));
    }

    /** @return iterable<string, array{string, int}> */
    public static function ifRanges(): iterable
    {
        yield 'same ETag' => [self::etag(20), 206];
        yield 'other ETag' => ['"other"', 200];
        yield 'weak ETag never matches' => ['W/' . self::etag(20), 200];
        yield 'same date' => ['Tue, 14 Nov 2023 22:13:20 GMT', 206];
        yield 'later date' => ['Wed, 15 Nov 2023 00:00:00 GMT', 200];
        yield 'garbage' => ['whenever', 200];
    }

    #[DataProvider('ifRanges')]
    public function testIfRange(string $ifRange, int $status): void
    {
        self::assertSame($status, $this->get('/a.txt', ['Range' => 'bytes=0-1', 'If-Range' => $ifRange])->getStatus());
    }

    public function testStatResultsAreCachedForTheTtl(): void
    {
        $cached = $this->files();
        $uncached = $this->files(statCacheTtl: 0.0);
        self::assertSame(self::etag(20), $this->get('/a.txt', files: $cached)->getHeader('ETag'));
        \touch("{$this->root}/a.txt", self::MTIME + 1);
        self::assertSame(self::etag(20), $this->get('/a.txt', files: $cached)->getHeader('ETag'), 'within the TTL');
        self::assertSame(\sprintf('"%x-14"', self::MTIME + 1), $this->get('/a.txt', files: $uncached)->getHeader('ETag'));
        self::assertSame(404, $this->get('/new.txt', files: $cached)->getStatus());
        \file_put_contents("{$this->root}/new.txt", 'new');
        self::assertSame(404, $this->get('/new.txt', files: $cached)->getStatus(), 'misses are cached too');
        self::assertSame('new', self::body($this->get('/new.txt', files: $uncached)));
    }

    public function testAFileChangedWhileCachedIsLookedUpAgain(): void
    {
        $files = $this->files(statCacheTtl: 60.0);
        self::assertSame(200, $this->get('/a.txt', files: $files)->getStatus());
        \file_put_contents("{$this->root}/a.txt", 'short');
        $response = $this->get('/a.txt', ['Range' => 'bytes=10-'], files: $files);
        self::assertSame(416, $response->getStatus(), 'the cached size (20) no longer fits: stat again');
        self::assertSame('bytes */5', $response->getHeader('Content-Range'));
        \unlink("{$this->root}/a.txt");
        self::assertSame('/a.txt', $this->get('/a.txt', files: $files)->getHeader('X-App'), 'gone: the app answers');
    }

    public function testStatCacheIsBounded(): void
    {
        $resolver = new StaticFileResolver((string) \realpath($this->root), false, 60.0);
        for ($i = 0; $i < StaticFileResolver::MAX_ENTRIES + 50; $i++) {
            self::assertNull($resolver->lookup("missing-{$i}"));
        }
        $cache = (new \ReflectionProperty($resolver, 'cache'))->getValue($resolver);
        self::assertIsArray($cache);
        self::assertCount(StaticFileResolver::MAX_ENTRIES, $cache);
        self::assertArrayNotHasKey('missing-0', $cache, 'the oldest went first');
    }

    public function testMisuseIsAnError(): void
    {
        $this->expectException(\ValueError::class);
        new StaticFiles("{$this->base}/no-such-dir", new ClosureHandler(static fn () => Response::empty()));
    }
}
