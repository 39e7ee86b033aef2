<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

/** `bin/petrel start APP --static=DIR`: files first, the app for everything else. */
final class StaticFilesTest extends AsyncTestCase
{
    private static ?PetrelProcess $server = null;
    private static string $dir = '';
    private static string $photo = '';

    public static function setUpBeforeClass(): void
    {
        self::$dir = \sys_get_temp_dir() . '/petrel-static-system-' . \bin2hex(\random_bytes(6));
        \mkdir(self::$dir . '/css', 0777, true);
        self::$photo = \random_bytes(300_000);
        \file_put_contents(self::$dir . '/photo.jpg', self::$photo);
        \file_put_contents(self::$dir . '/css/site.css', 'body { color: teal }');
        \file_put_contents(self::$dir . '/index.html', '<h1>static home</h1>');
        self::$server = (new PetrelProcess(__DIR__ . '/fixtures/app.php', ['--workers=1', '--static=' . self::$dir]))->start();
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
        foreach (['photo.jpg', 'css/site.css', 'index.html'] as $file) {
            @\unlink(self::$dir . "/{$file}");
        }
        @\rmdir(self::$dir . '/css');
        @\rmdir(self::$dir);
    }

    private function address(): string
    {
        \assert(self::$server !== null);

        return self::$server->address;
    }

    public function testServesAFile(): void
    {
        $this->async(function (): void {
            $response = RawHttp::get($this->address(), '/css/site.css');
            self::assertSame(200, $response->status);
            self::assertSame('body { color: teal }', $response->body);
            self::assertSame('text/css; charset=utf-8', $response->header('content-type'));
            self::assertSame('20', $response->header('content-length'));
            self::assertSame('bytes', $response->header('accept-ranges'));
            self::assertMatchesRegularExpression('/^"[0-9a-f]+-14"$/', (string) $response->header('etag'));

            $big = RawHttp::get($this->address(), '/photo.jpg');
            self::assertSame(200, $big->status);
            self::assertSame(\md5(self::$photo), \md5($big->body), 'a 300 KB file arrives whole');
            self::assertSame('image/jpeg', $big->header('content-type'));
            self::assertSame('<h1>static home</h1>', RawHttp::get($this->address(), '/')->body, 'index.html for /');
        });
    }

    public function testRange(): void
    {
        $this->async(function (): void {
            $response = RawHttp::get($this->address(), '/photo.jpg', ['Range' => 'bytes=100000-100099']);
            self::assertSame(206, $response->status);
            self::assertSame('bytes 100000-100099/300000', $response->header('content-range'));
            self::assertSame('100', $response->header('content-length'));
            self::assertSame(\substr(self::$photo, 100000, 100), $response->body);

            $tail = RawHttp::get($this->address(), '/photo.jpg', ['Range' => 'bytes=-10']);
            self::assertSame(\substr(self::$photo, -10), $tail->body);

            $unsatisfiable = RawHttp::get($this->address(), '/photo.jpg', ['Range' => 'bytes=300000-']);
            self::assertSame(416, $unsatisfiable->status);
            self::assertSame('bytes */300000', $unsatisfiable->header('content-range'));
        });
    }

    public function testConditionalGetGives304WithoutABody(): void
    {
        $this->async(function (): void {
            $first = RawHttp::get($this->address(), '/css/site.css');
            $etag = (string) $first->header('etag');
            $socket = RawHttp::connect($this->address());
            $socket->write("GET /css/site.css HTTP/1.1\r\nHost: a\r\nIf-None-Match: {$etag}\r\n\r\n");
            $notModified = RawHttp::readResponse($socket);
            self::assertSame(304, $notModified?->status);
            self::assertSame($etag, $notModified->header('etag'));
            self::assertSame($first->header('last-modified'), $notModified->header('last-modified'));
            self::assertNull($notModified->header('content-length'));
            $socket->write("GET /css/site.css HTTP/1.1\r\nHost: a\r\nIf-Modified-Since: {$first->header('last-modified')}\r\nConnection: close\r\n\r\n");
            self::assertSame(304, RawHttp::readResponse($socket)?->status, 'no stray body bytes after the 304: the next response parses');
            self::assertNull(RawHttp::readResponse($socket));
            $socket->close();
        });
    }

    public function testHeadSendsHeadersOnly(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            $socket->write("HEAD /photo.jpg HTTP/1.1\r\nHost: a\r\n\r\nGET /css/site.css HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            $head = RawHttp::readResponse($socket, headRequest: true);
            self::assertSame('300000', $head?->header('content-length'));
            self::assertSame('body { color: teal }', RawHttp::readResponse($socket)?->body);
            $socket->close();
        });
    }

    public function testEverythingElseReachesTheApp(): void
    {
        $this->async(function (): void {
            $pid = RawHttp::get($this->address(), '/pid');
            self::assertSame(200, $pid->status);
            self::assertMatchesRegularExpression('/^\d+$/', $pid->body, 'an app route, not a file');
            self::assertSame(404, RawHttp::get($this->address(), '/missing.css')->status);
            self::assertSame("not found\n", RawHttp::get($this->address(), '/../../etc/passwd')->body, 'the app answers a traversal attempt');
            $post = RawHttp::request($this->address(), "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi");
            self::assertSame('POST', \json_decode($post->body, true)['method'] ?? null);
        });
    }

    public function testAMissingStaticDirectoryIsAClearError(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--static=/no/such/dir', '--listen=127.0.0.1:' . PetrelProcess::freePort()], $code);
        self::assertSame(1, $code);
        self::assertSame("petrel: --static must be an existing directory, got \"/no/such/dir\"\n", $output);
    }
}
