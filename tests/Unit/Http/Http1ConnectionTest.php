<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Petrel\Http\FileBody;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\AccessLog;
use Petrel\Http\Internal\ConnectionHost;
use Petrel\Http\Internal\ConnectionRunners;
use Petrel\Http\Internal\ConnectionSocket;
use Petrel\Http\Internal\Http1Connection;
use Petrel\Http\Internal\MemorySocket;
use Petrel\Http\Internal\ResponseEncoder;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Http\StreamBody;
use Petrel\Socket\Socket;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\sleep;

/**
 * Http1Connection driven in memory (the amphp Http1Driver way): a MemorySocket fed the
 * client's bytes whole, byte by byte or in random splits, and what it wrote read back.
 */
final class Http1ConnectionTest extends AsyncTestCase
{
    private const THREE = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        . "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
        . "GET /c HTTP/1.1\r\nHost: x\r\n\r\n";

    /** @var list<string> */
    private array $logged = [];
    private bool $stopping = false;
    /** @var array<int, true> connections whose end the host heard of, by id */
    private array $closed = [];
    private ?Suspension $closing = null;
    private ?ConnectionRunners $runners = null;

    public function testKeepAliveWholeByteByByteAndInRandomSplits(): void
    {
        \mt_srand(11);
        $splits = ['whole' => [self::THREE], 'bytes' => \str_split(self::THREE)];
        for ($i = 0; $i < 5; $i++) {
            $splits["random {$i}"] = self::randomSplit(self::THREE);
        }
        foreach ($splits as $name => $chunks) {
            $this->async(function () use ($chunks, $name): void {
                [$socket] = $this->serve($chunks, self::echoPath(...));
                $responses = self::parse($socket->written());
                self::assertSame(['GET /a', 'POST /b body', 'GET /c'], \array_column($responses, 'body'), $name);
                self::assertSame([null, null, null], \array_column($responses, 'connection'), "{$name}: kept alive");
                self::assertTrue($socket->isClosed());
                self::assertFalse($socket->isEnded(), 'a close at the client\'s EOF does not linger');
            });
        }
    }

    public function testPipelinedResponsesComeInOrder(): void
    {
        $this->async(function (): void {
            $handler = static function (Request $request): Response {
                sleep($request->getPath() === '/a' ? 0.03 : 0.0);

                return Response::text($request->getPath());
            };
            [$socket] = $this->serve([self::THREE], $handler);
            self::assertSame(['/a', '/b', '/c'], \array_column(self::parse($socket->written()), 'body'));
        });
    }

    public function testExpectContinueIsAnsweredBeforeTheBodyIsRead(): void
    {
        $this->async(function (): void {
            $socket = new MemorySocket(["POST /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"]);
            $connection = $this->connection($socket, self::echoPath(...));
            $connection->start();
            self::waitFor(static fn (): bool => $socket->written() !== '');
            self::assertSame("HTTP/1.1 100 Continue\r\n\r\n", $socket->written());
            $socket->feed('hello');
            $socket->feedEnd();
            $this->waitClosed($connection);
            self::assertSame('POST /up hello', self::parse(\substr($socket->written(), 25))[0]['body']);
        });
    }

    public function testHttp10ClosesUnlessAskedToKeepAlive(): void
    {
        $this->async(function (): void {
            $two = "GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.0\r\n\r\n";
            [$socket] = $this->serve([$two], self::echoPath(...));
            $responses = self::parse($socket->written());
            self::assertSame(['GET /a'], \array_column($responses, 'body'), 'closed after the first');
            self::assertSame('close', $responses[0]['connection']);
            self::assertTrue($socket->isEnded(), 'the unread second request: a lingering close');

            [$socket] = $this->serve(["GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\n\r\n"], self::echoPath(...));
            $responses = self::parse($socket->written());
            self::assertSame(['GET /a', 'GET /b'], \array_column($responses, 'body'));
            self::assertSame(['keep-alive', 'close'], \array_column($responses, 'connection'));
        });
    }

    public function testConnectionCloseAndMaxRequestsEndTheConnection(): void
    {
        $this->async(function (): void {
            $raw = "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n";
            [$socket] = $this->serve([$raw], self::echoPath(...));
            self::assertSame(['close'], \array_column(self::parse($socket->written()), 'connection'));

            [$socket] = $this->serve([self::THREE], self::echoPath(...), new ServerConfig(maxRequestsPerConnection: 2));
            $responses = self::parse($socket->written());
            self::assertSame(['GET /a', 'POST /b body'], \array_column($responses, 'body'));
            self::assertSame([null, 'close'], \array_column($responses, 'connection'));
        });
    }

    public function testAfterEightBackToBackRequestsTheConnectionLetsTheLoopRun(): void
    {
        $this->async(function (): void {
            $served = 0;
            $seen = [];
            $handler = static function () use (&$served): Response {
                ++$served;

                return Response::text('ok');
            };
            $socket = new MemorySocket([\str_repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 20)], true);
            $connection = $this->connection($socket, $handler);
            $connection->start();
            while (!isset($this->closed[1])) {
                $seen[] = $served;
                sleep(0);
            }
            self::assertSame(20, $served);
            self::assertContains(Http1Connection::FAIRNESS_STREAK, $seen, 'the loop ran after the first streak');
        });
    }

    public function testTheDeadlineFollowsThePhase(): void
    {
        $this->async(function (): void {
            $config = new ServerConfig(headerTimeout: 100.0, bodyTimeout: 200.0, idleTimeout: 300.0, writeTimeout: 400.0);
            $socket = new MemorySocket();
            $connection = $this->connection($socket, self::echoPath(...), $config);
            $connection->start();
            $left = static fn (): float => $connection->deadline - \hrtime(true) * 1e-9;
            sleep(0);
            self::assertEqualsWithDelta(100.0, $left(), 1.0, 'new: the header timeout');
            self::assertTrue($connection->isIdle(), 'nothing sent yet: idle');
            $socket->feed("POST / HTTP/1.1\r\nHost: x\r\n");
            sleep(0);
            self::assertEqualsWithDelta(100.0, $left(), 1.0, 'a partial head');
            self::assertFalse($connection->isIdle());
            $socket->feed("Content-Length: 3\r\n\r\na");
            sleep(0);
            self::assertEqualsWithDelta(200.0, $left(), 1.0, 'the body');
            $socket->feed('bc');
            sleep(0);
            self::assertEqualsWithDelta(300.0, $left(), 1.0, 'answered: the idle timeout');
            self::assertTrue($connection->isIdle());
            $socket->feedEnd();
            $this->waitClosed($connection);
        });
    }

    /**
     * At a stop, part of a head gets the grace an idle connection gets: a client that
     * stalled mid-head held `petrel stop` for the whole graceful timeout. A body on its way
     * keeps its own timeout (a request in flight), and a head begun after the stop does not
     * start a header timeout of its own.
     */
    public function testAStopGivesAPartialHeadTheGraceNotTheHeaderTimeout(): void
    {
        $this->async(function (): void {
            $config = new ServerConfig(headerTimeout: 100.0, bodyTimeout: 200.0);
            $left = static fn (Http1Connection $connection): float => $connection->deadline - \hrtime(true) * 1e-9;

            $socket = new MemorySocket(["GET / HTTP/1.1\r\nHost: x\r\n"]);
            $connection = $this->connection($socket, self::echoPath(...), $config);
            $connection->start();
            self::waitFor(static fn (): bool => !$connection->isIdle());
            self::assertEqualsWithDelta(100.0, $left($connection), 1.0, 'a partial head: the header timeout');
            $connection->stop(2.0);
            self::assertEqualsWithDelta(2.0, $left($connection), 0.5, 'stopping: the grace');
            $connection->close();
            $this->waitClosed($connection);

            $socket = new MemorySocket(["POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\na"]);
            $connection = $this->connection($socket, self::echoPath(...), $config);
            $connection->start();
            self::waitFor(static fn (): bool => $left($connection) > 150.0); // reading the body
            $connection->stop(2.0);
            self::assertEqualsWithDelta(200.0, $left($connection), 1.0, 'a body on its way keeps its timeout');
            $socket->feed('bc');
            $this->waitClosed($connection);
            self::assertSame(['status' => 200, 'connection' => 'close', 'body' => 'POST / abc'], self::parse($socket->written())[0]);

            $this->stopping = true;
            $socket = new MemorySocket();
            $connection = $this->connection($socket, self::echoPath(...), $config);
            $connection->start();
            sleep(0);
            $socket->feed("GET / HTTP/1.1\r\n");
            self::waitFor(static fn (): bool => !$connection->isIdle());
            self::assertLessThanOrEqual(Server::STOP_GRACE, $left($connection), 'a head begun after the stop');
            $connection->close();
            $this->waitClosed($connection);
        });
    }

    /**
     * The write timeout covers the writes, not the waits of a streamed body for its next
     * chunk: a long poll or an event stream quiet for longer than writeTimeout was cut off
     * by the sweeper while its client read everything.
     */
    public function testAStreamedBodyHasNoWriteDeadlineWhileItWaitsForItsNextChunk(): void
    {
        $this->async(function (): void {
            $seen = [];
            $connection = null;
            $config = new ServerConfig(writeTimeout: 400.0);
            $handler = static function () use (&$connection, &$seen): Response {
                return Response::stream((static function () use (&$connection, &$seen): \Generator {
                    $seen['first'] = $connection->deadline; // the head went out
                    yield 'a';
                    $seen['between'] = $connection->deadline;
                    yield 'b';
                })());
            };
            $socket = new MemorySocket(["GET / HTTP/1.1\r\nHost: x\r\n\r\n"], true);
            $connection = $this->connection($socket, $handler, $config);
            $connection->start();
            $this->waitClosed($connection);
            self::assertSame(['first' => \INF, 'between' => \INF], $seen);
            self::assertStringEndsWith("1\r\na\r\n1\r\nb\r\n0\r\n\r\n", $socket->written());
        });
    }

    public function testABodyThatFailsAfterItsHeadIsLoggedAndCutByAClose(): void
    {
        $this->async(function (): void {
            $handler = static fn (Request $request): Response => match ($request->getPath()) {
                '/throws' => Response::stream((static function (): \Generator {
                    yield 'part';
                    throw new \RuntimeException('the stream failed');
                })()),
                '/long' => new Response(200, [], new StreamBody(['hello world'], 5)),
                default => Response::text('next'),
            };
            $next = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
            [$socket] = $this->serve(["GET /throws HTTP/1.1\r\nHost: x\r\n\r\n{$next}"], $handler);
            self::assertStringEndsWith("4\r\npart\r\n", $socket->written(), 'no last chunk: the client sees a cut body');
            self::assertSame(['the stream failed'], $this->logged, 'logged with its request, not lost in the runner');
            self::assertTrue($socket->isClosed());

            [$socket] = $this->serve(["GET /long HTTP/1.1\r\nHost: x\r\n\r\n{$next}"], $handler);
            self::assertStringEndsWith("Content-Length: 5\r\n\r\nhello", $socket->written(), 'nothing past the length, no next response');
            self::assertStringContainsString('gave more bytes', $this->logged[1] ?? '');

            // A file cut short after its response was made (rewritten, truncated by a log
            // rotation) was taken for the client's failure: the connection closed without a word.
            $file = \tempnam(\sys_get_temp_dir(), 'petrel-cut-');
            \file_put_contents($file, 'hello world');
            $body = new FileBody($file);
            \file_put_contents($file, 'hello');
            try {
                [$socket] = $this->serve(["GET /file HTTP/1.1\r\nHost: x\r\n\r\n{$next}"], static fn (): Response => new Response(200, [], $body));
            } finally {
                \unlink($file);
            }
            self::assertStringEndsWith("Content-Length: 11\r\n\r\nhello", $socket->written(), 'no next response');
            self::assertStringContainsString("{$file} ended 6 bytes early while it was sent (it changed after the response was made)", $this->logged[2] ?? '');
            self::assertTrue($socket->isClosed());
        });
    }

    public function testAfterSendCallbacksRunOnceTheResponseIsWrittenInOrderAndAFailureIsLogged(): void
    {
        $this->async(function (): void {
            $socket = new MemorySocket(["GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n"], true);
            $seen = [];
            $handler = static function (Request $request) use ($socket, &$seen): Response {
                $seen[] = "handler {$request->getPath()}";
                if ($request->getPath() !== '/first') {
                    return Response::text('next');
                }

                return Response::text('first')
                    ->withAfterSend(static function () use ($socket, &$seen): void {
                        $seen[] = 'one, after ' . \substr_count($socket->written(), 'HTTP/1.1 200') . ' response(s) written: ' . (\str_ends_with($socket->written(), 'first') ? 'all of it' : 'not all');
                        sleep(0.01); // a callback may wait, as a handler does
                    })
                    ->withHeader('X-Kept', 'by the copies')
                    ->withAfterSend(static function (): never {
                        throw new \RuntimeException('the second failed');
                    })
                    ->withAfterSend(static function () use (&$seen): void {
                        $seen[] = 'three';
                    });
            };
            $connection = $this->connection($socket, $handler);
            $connection->start();
            $this->waitClosed($connection);

            self::assertSame(['handler /first', 'one, after 1 response(s) written: all of it', 'three', 'handler /next'], $seen);
            self::assertSame(['the second failed'], $this->logged, 'logged with its request; the connection goes on');
            self::assertSame(2, \substr_count($socket->written(), 'HTTP/1.1 200'));
        });
    }

    public function testAfterSendCallbacksRunWhenTheWriteFails(): void
    {
        $this->async(function (): void {
            $socket = new MemorySocket(["GET / HTTP/1.1\r\nHost: x\r\n\r\n"], false);
            $ran = false;
            $handler = static function () use ($socket, &$ran): Response {
                $socket->close(); // the client is gone before the response goes out
                return Response::text('lost')->withAfterSend(static function () use (&$ran): void {
                    $ran = true;
                });
            };
            $connection = $this->connection($socket, $handler);
            $connection->start();
            $this->waitClosed($connection);

            self::assertSame('', $socket->written());
            self::assertTrue($ran, 'what must follow the request (a lock, a reset) is not skipped');
        });
    }

    public function testMalformedInputIsAnsweredWithItsStatusThenALingeringClose(): void
    {
        $this->async(function (): void {
            [$socket] = $this->serve(["BROKEN\r\n\r\n", 'more', 'bytes'], self::echoPath(...));
            $response = self::parse($socket->written())[0];
            self::assertSame(400, $response['status']);
            self::assertSame('close', $response['connection']);
            self::assertTrue($socket->isEnded(), 'half-closed after the answer');
            self::assertFalse($socket->hasUnread(), 'and the client\'s bytes drained until its EOF');

            $big = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n";
            $config = new ServerConfig(limits: new HttpLimits(maxBodyBytes: 1000));
            [$socket] = $this->serve([$big, ...\str_split(\str_repeat('x', 100000), 8192)], self::echoPath(...), $config);
            $tooLarge = self::parse($socket->written())[0];
            self::assertSame(413, $tooLarge['status']);
            self::assertSame(\strlen($big) + 100000, $socket->bytesRead(), 'the whole upload read and dropped');
            // Counted and logged by the host, as answered requests are (they were not), with
            // the body's bytes, as an answered one's (the whole response's were given).
            self::assertSame('refused 400, ' . \strlen($response['body']) . ' bytes', $this->logged[0] ?? '');
            self::assertSame('refused 413, ' . \strlen($tooLarge['body']) . ' bytes', $this->logged[1] ?? '');
        });
    }

    public function testLingeringIsBoundedInBytesAndSkippedWhenStopping(): void
    {
        $this->async(function (): void {
            $chunks = ["BROKEN\r\n\r\n", ...\array_fill(0, 10, \str_repeat('x', 1000))];
            [$socket] = $this->serve($chunks, self::echoPath(...), new ServerConfig(lingerBytes: 2500));
            self::assertTrue($socket->isClosed());
            self::assertTrue($socket->hasUnread(), 'stopped reading after lingerBytes');
            self::assertLessThan(5000, $socket->bytesRead());

            $this->stopping = true;
            [$socket] = $this->serve($chunks, self::echoPath(...), end: false);
            self::assertSame(400, self::parse($socket->written())[0]['status']);
            self::assertTrue($socket->isClosed(), 'closed at once on stop, though the client never ended');
            self::assertFalse($socket->isEnded());
        });
    }

    public function testAnUpgradeHandsOverTheSocketAndTheBufferedBytes(): void
    {
        $this->async(function (): void {
            $got = null;
            $handler = static function () use (&$got): Response {
                return Response::upgrade(['Upgrade' => 'echo'], static function (Socket $socket, string $buffered) use (&$got): void {
                    $got = [$socket, $buffered, $socket->read()];
                    $socket->write('after');
                });
            };
            $socket = new MemorySocket(["GET / HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nearly"]);
            $connection = $this->connection($socket, $handler);
            $connection->start();
            self::waitFor(static fn (): bool => $got === null && $socket->written() !== '');
            sleep(0);
            self::assertSame(\INF, $connection->deadline, 'no HTTP deadline once upgraded');
            self::assertFalse($connection->isIdle(), 'never evicted as idle');
            $socket->feed('late');
            $this->waitClosed($connection);
            self::assertSame([$socket, 'early', 'late'], $got);
            self::assertStringStartsWith("HTTP/1.1 101 Switching Protocols\r\n", $socket->written());
            self::assertStringEndsWith("\r\n\r\nafter", $socket->written());
            self::assertTrue($socket->isClosed(), 'closed when the handler returns');
        });
    }

    public function testAnUpgradeOnHttp10IsA500AndLogged(): void
    {
        $this->async(function (): void {
            $handler = static fn (): Response => Response::upgrade(['Upgrade' => 'echo'], static function (): void {
            });
            [$socket] = $this->serve(["GET / HTTP/1.0\r\nUpgrade: echo\r\n\r\n"], $handler);
            self::assertSame(500, self::parse($socket->written())[0]['status']);
            self::assertCount(1, $this->logged);
        });
    }

    public function testARejectedConnectionGets503WithoutItsRequestBeingRead(): void
    {
        $this->async(function (): void {
            $socket = new MemorySocket(["GET / HTTP/1.1\r\nHost: x\r\n\r\n"], true);
            $connection = $this->connection($socket, self::echoPath(...));
            $connection->reject();
            self::assertTrue(isset($this->closed[1]), 'the host heard of its end');
            $response = self::parse($socket->written())[0];
            self::assertSame(503, $response['status']);
            self::assertSame('close', $response['connection']);
            self::assertStringContainsString('Retry-After: ' . Http1Connection::RETRY_AFTER . "\r\n", $socket->written());
            self::assertTrue($socket->isEnded() && $socket->isClosed(), 'a lingering close');
            self::assertSame(['refused 503, ' . \strlen($response['body']) . ' bytes'], $this->logged, 'the body\'s bytes, not the whole response\'s');
        });
    }

    /**
     * Runs a connection over $chunks (then EOF unless !$end) to its end.
     *
     * @param list<string> $chunks
     * @return array{MemorySocket, Http1Connection}
     */
    private function serve(array $chunks, \Closure $handler, ServerConfig $config = new ServerConfig(), bool $end = true): array
    {
        $socket = new MemorySocket($chunks, $end);
        $connection = $this->connection($socket, $handler, $config);
        $connection->start();
        $this->waitClosed($connection);

        return [$socket, $connection];
    }

    private function connection(MemorySocket $socket, \Closure $handler, ServerConfig $config = new ServerConfig()): Http1Connection
    {
        $test = $this;
        $host = new class ($handler, $config, $test) implements ConnectionHost {
            private readonly ResponseEncoder $encoder;

            public function __construct(private readonly \Closure $handler, private readonly ServerConfig $config, private readonly Http1ConnectionTest $test)
            {
                $this->encoder = new ResponseEncoder();
            }

            public function config(): ServerConfig
            {
                return $this->config;
            }

            public function encoder(): ResponseEncoder
            {
                return $this->encoder;
            }

            public function accessLog(): ?AccessLog
            {
                return null;
            }

            public function runners(): ConnectionRunners
            {
                return $this->test->runners();
            }

            public function isStopping(): bool
            {
                return $this->test->isStopping();
            }

            public function dispatch(Request $request, ConnectionSocket $client): Response
            {
                return ($this->handler)($request);
            }

            public function logError(\Throwable $error, Request $request): void
            {
                $this->test->log($error->getMessage());
            }

            public function refused(int $status, ?string $remote, int $bytes): void
            {
                $this->test->log("refused {$status}, {$bytes} bytes");
            }

            public function connectionClosed(Http1Connection $connection): void
            {
                $this->test->closed($connection->id);
            }
        };

        return new Http1Connection(1, $socket, $host);
    }

    /** @internal for the fake host */
    public function isStopping(): bool
    {
        return $this->stopping;
    }

    /** @internal for the fake host */
    public function log(string $message): void
    {
        $this->logged[] = $message;
    }

    /** @internal for the fake host: one set of runners per test, stopped by async() */
    public function runners(): ConnectionRunners
    {
        return $this->runners ??= new ConnectionRunners();
    }

    protected function async(\Closure $test, float $timeout = 10.0): mixed
    {
        return parent::async(function () use ($test): mixed {
            try {
                return $test();
            } finally {
                $this->runners?->stop();
                $this->runners = null;
                while (\count(Scheduler::get()->coroutines()) > 1) {
                    sleep(0); // the runners end: only this one is left
                }
            }
        }, $timeout);
    }

    /** @internal for the fake host: connectionClosed() */
    public function closed(int $id): void
    {
        self::assertArrayNotHasKey($id, $this->closed, 'connectionClosed() once');
        $this->closed[$id] = true;
        $this->closing?->resume();
    }

    private function waitClosed(Http1Connection $connection): void
    {
        if (!isset($this->closed[$connection->id])) {
            $this->closing = Scheduler::get()->suspension();
            try {
                $this->closing->suspend(5.0);
            } finally {
                $this->closing = null;
            }
        }
        unset($this->closed[$connection->id]); // the next serve() reuses the id
    }

    private static function echoPath(Request $request): Response
    {
        return Response::text(\trim($request->getMethod() . ' ' . $request->getPath() . ' ' . $request->getBody()));
    }

    /** @return list<string> */
    private static function randomSplit(string $bytes): array
    {
        $chunks = [];
        while ($bytes !== '') {
            $length = \mt_rand(1, 20);
            $chunks[] = \substr($bytes, 0, $length);
            $bytes = (string) \substr($bytes, $length);
        }

        return $chunks;
    }

    /**
     * Responses framed by Content-Length (all these tests send).
     *
     * @return list<array{status: int, connection: ?string, body: string}>
     */
    private static function parse(string $raw): array
    {
        $responses = [];
        while ($raw !== '') {
            $end = \strpos($raw, "\r\n\r\n");
            self::assertIsInt($end, "a response head in: {$raw}");
            $head = \substr($raw, 0, $end);
            \preg_match('/^HTTP\/1\.1 (\d{3})/', $head, $status);
            \preg_match('/\r\nContent-Length: (\d+)/i', $head, $length);
            \preg_match('/\r\nConnection: ([^\r]+)/i', $head, $connection);
            $bodyLength = (int) ($length[1] ?? 0);
            $responses[] = ['status' => (int) ($status[1] ?? 0), 'connection' => $connection[1] ?? null, 'body' => \substr($raw, $end + 4, $bodyLength)];
            $raw = (string) \substr($raw, $end + 4 + $bodyLength);
        }

        return $responses;
    }

    private static function waitFor(\Closure $condition): void
    {
        for ($i = 0; $i < 1000 && !$condition(); $i++) {
            sleep(0.001);
        }
        self::assertTrue($condition(), 'condition met within a second');
    }
}
