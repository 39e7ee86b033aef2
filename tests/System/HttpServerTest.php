<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;
use PHPUnit\Framework\Attributes\DataProvider;

use function Petrel\go;
use function Petrel\sleep;

/** The server as a spawned `bin/petrel` process, spoken to over real sockets. */
final class HttpServerTest extends AsyncTestCase
{
    private static ?PetrelProcess $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = (new PetrelProcess(__DIR__ . '/fixtures/app.php', ['--workers=2', '--header-timeout=1', '--max-body=64M']))->start();
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    private function address(): string
    {
        \assert(self::$server !== null);

        return self::$server->address;
    }

    public function testHelloWorld(): void
    {
        $this->async(function (): void {
            $response = RawHttp::get($this->address());
            self::assertSame(200, $response->status);
            self::assertSame('Hello, World!', $response->body);
            self::assertSame('13', $response->header('content-length'));
            self::assertNotNull($response->header('date'));
        });
    }

    public function testKeepAliveAndPipelining(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            $socket->write("GET /pid HTTP/1.1\r\nHost: a\r\n\r\n");
            $first = RawHttp::readResponse($socket);
            $socket->write("GET /pid HTTP/1.1\r\nHost: a\r\n\r\n");
            $second = RawHttp::readResponse($socket);
            self::assertSame($first?->body, $second?->body, 'both requests were served by one worker on one connection');
            $socket->write(
                "GET /sleep?ms=30 HTTP/1.1\r\nHost: a\r\n\r\n"
                . "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n"
                . "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
                . "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            );
            $responses = [
                RawHttp::readResponse($socket),
                RawHttp::readResponse($socket, headRequest: true),
                RawHttp::readResponse($socket),
                RawHttp::readResponse($socket),
            ];
            self::assertSame('slept 30', $responses[0]?->body, 'pipelined responses come back in order');
            self::assertSame('13', $responses[1]?->header('content-length'), 'HEAD has the GET length, no body');
            self::assertSame(5, \json_decode((string) $responses[2]?->body, true)['length'] ?? null);
            self::assertSame('close', $responses[3]?->header('connection'));
            self::assertNull(RawHttp::readResponse($socket), 'closed after Connection: close');
            $socket->close();
        });
    }

    public function testEachRequestRunsInItsOwnCoroutineEvenOnOneConnection(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            foreach ([1, 2] as $round) {
                $socket->write("GET /context HTTP/1.1\r\nHost: a\r\n\r\n");
                self::assertSame('none', RawHttp::readResponse($socket)?->body, "request {$round} sees no state of the one before");
            }
            $socket->close();
        });
    }

    public function testHttp10ClosesUnlessKeepAlive(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            $socket->write("GET / HTTP/1.0\r\n\r\n");
            self::assertSame(200, RawHttp::readResponse($socket)?->status);
            self::assertNull($socket->read(), 'HTTP/1.0 without keep-alive closes');
            $socket->close();
            $socket = RawHttp::connect($this->address());
            $socket->write("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            self::assertSame('keep-alive', RawHttp::readResponse($socket)?->header('connection'));
            $socket->write("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            self::assertSame(200, RawHttp::readResponse($socket)?->status);
            $socket->close();
        });
    }

    public function testExpect100Continue(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            $socket->write("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n");
            $interim = RawHttp::readResponse($socket);
            self::assertSame(100, $interim?->status, 'the server invites the body before it is sent');
            $socket->write('hello world');
            $final = RawHttp::readResponse($socket);
            self::assertSame(200, $final?->status);
            self::assertSame(\md5('hello world'), \json_decode((string) $final->body, true)['md5'] ?? null);
            $socket->close();
        });
    }

    public function testChunkedUpload(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            $socket->write("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
            $body = '';
            foreach (['first,', \str_repeat('x', 70000), 'last'] as $chunk) {
                $socket->write(\dechex(\strlen($chunk)) . "\r\n{$chunk}\r\n");
                $body .= $chunk;
                sleep(0.005);
            }
            $socket->write("0\r\nX-Trailer: yes\r\n\r\n");
            $response = RawHttp::readResponse($socket);
            $echo = \json_decode((string) $response?->body, true);
            self::assertSame(\strlen($body), $echo['length'] ?? null);
            self::assertSame(\md5($body), $echo['md5'] ?? null);
            $socket->close();
        });
    }

    public function testMultipartUploadOf20MegabytesStreamsToDisk(): void
    {
        $this->async(function (): void {
            $file = \random_bytes(20 * 1024 * 1024);
            $boundary = 'petrel' . \bin2hex(\random_bytes(8));
            $body = "--{$boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nholiday\r\n"
                . "--{$boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                . $file . "\r\n--{$boundary}--\r\n";
            $response = RawHttp::request($this->address(), "POST /upload HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
                . "Content-Type: multipart/form-data; boundary={$boundary}\r\nContent-Length: " . \strlen($body) . "\r\n\r\n" . $body);
            self::assertSame(200, $response->status, $response->body);
            $result = \json_decode($response->body, true);
            self::assertSame(['name' => 'big.bin', 'size' => \strlen($file), 'md5' => \md5($file)], $result['photo'] ?? null);
            self::assertSame(['title' => 'holiday'], $result['fields'] ?? null);
            self::assertLessThan(16 * 1024 * 1024, $result['peak'] ?? \PHP_INT_MAX, 'the worker never held the 20 MB upload in memory');
        }, 60.0);
    }

    /** @return iterable<string, array{string, int}> */
    public static function badRequests(): iterable
    {
        yield 'garbage request line' => ["GARBAGE\r\n\r\n", 400];
        yield 'space before colon' => ["GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400];
        yield 'obs-fold' => ["GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", 400];
        yield 'content-length and chunked' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400];
        yield 'conflicting content-lengths' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400];
        yield 'header block too large' => ["GET / HTTP/1.1\r\nHost: a\r\nX-Big: " . \str_repeat('a', 20000) . "\r\n\r\n", 431];
        yield 'body too large' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: " . (65 * 1024 * 1024) . "\r\n\r\n", 413];
        yield 'unsupported transfer-encoding' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501];
        yield 'URI too long' => ['GET /' . \str_repeat('a', 9000) . " HTTP/1.1\r\nHost: a\r\n\r\n", 414];
        yield 'HTTP/2 preface' => ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505];
        yield 'unknown version' => ["GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505];
        yield 'bad chunk size' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400];
    }

    #[DataProvider('badRequests')]
    public function testBadInputGetsItsStatusAndTheWorkerLivesOn(string $raw, int $status): void
    {
        $this->async(function () use ($raw, $status): void {
            $socket = RawHttp::connect($this->address());
            $socket->write($raw);
            $response = RawHttp::readResponse($socket);
            self::assertSame($status, $response?->status);
            self::assertSame('close', $response->header('connection'));
            self::assertNull($socket->read(), 'the connection is closed after the error');
            $socket->close();
            self::assertSame(200, RawHttp::get($this->address())->status, 'the server still serves');
        });
    }

    public function testSlowlorisIsTimedOut(): void
    {
        $this->async(function (): void {
            $socket = RawHttp::connect($this->address());
            $start = \microtime(true);
            $socket->write("GET / HTTP/1.1\r\n");
            $closed = false;
            for ($i = 0; $i < 40 && !$closed; $i++) {
                sleep(0.1);
                try {
                    $socket->write("X-Slow-{$i}: x\r\n");
                } catch (\Petrel\Socket\SocketException) {
                    $closed = true;
                }
            }
            if (!$closed) {
                self::assertNull(\Petrel\timeout(2.0, static fn () => $socket->read()), 'the server hung up on the slow client');
            }
            self::assertLessThan(3.5, \microtime(true) - $start, 'closed within header timeout (1 s) + sweep interval');
            $socket->close();
        });
    }

    public function testHandlerExceptionGives500AndIsLoggedWithTheRequestLine(): void
    {
        $this->async(function (): void {
            $response = RawHttp::get($this->address(), '/boom');
            self::assertSame(500, $response->status);
            self::assertStringNotContainsString('on purpose', $response->body, 'no details without --debug');
            self::assertSame(200, RawHttp::get($this->address())->status);
        });
        \assert(self::$server !== null);
        PetrelProcess::waitFor(static fn () => \str_contains(self::$server->log(), 'GET /boom failed: RuntimeException: handler failure on purpose'), 5, 'the error log line');
    }

    public function testStreamedResponseIsChunked(): void
    {
        $this->async(function (): void {
            $response = RawHttp::get($this->address(), '/stream');
            self::assertSame('chunked', $response->header('transfer-encoding'));
            self::assertSame("part 1\npart 2\npart 3\n", $response->body);
        });
    }

    public function testConcurrentClientsAreServed(): void
    {
        $this->async(function (): void {
            $clients = [];
            for ($i = 0; $i < 100; $i++) {
                $clients[] = go(fn () => RawHttp::get($this->address(), '/sleep?ms=50')->body);
            }
            foreach ($clients as $client) {
                self::assertSame('slept 50', $client->join());
            }
        });
    }
}
