<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\Socket\listen;
use function Petrel\timeout;

/**
 * The write timeout at its limit, over loopback: it runs while a write waits for a peer
 * that does not take the bytes, not while a streamed body waits for its next chunk.
 */
final class WriteTimeoutTest extends AsyncTestCase
{
    public function testAStreamQuietForLongerThanTheWriteTimeoutIsSentWhole(): void
    {
        $this->async(function (): void {
            $handler = static fn (): Response => Response::stream((static function (): \Generator {
                yield 'first ';
                sleep(0.8); // past the write timeout, and the sweeps in between
                yield 'second';
            })());
            [$server, $serving, $address] = self::start($handler, new ServerConfig(writeTimeout: 0.3));
            $client = RawHttp::connect($address);
            $client->write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            self::assertSame('first second', RawHttp::readResponse($client)?->body);
            $client->close();
            $server->stop();
            $serving->join();
        });
    }

    public function testAPeerThatStopsReadingAStreamIsCutOffAfterTheWriteTimeout(): void
    {
        $this->async(function (): void {
            $handler = static fn (): Response => Response::stream((static function (): \Generator {
                while (true) {
                    yield \str_repeat('x', 256 * 1024);
                }
            })());
            [$server, $serving, $address] = self::start($handler, new ServerConfig(writeTimeout: 0.3));
            $client = RawHttp::connect($address);
            $client->write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"); // and never reads
            $started = \hrtime(true);
            timeout(5.0, static function () use ($server): void {
                while ($server->stats()['connections'] > 0) {
                    sleep(0.05);
                }
            });
            self::assertLessThan(3.0, (\hrtime(true) - $started) / 1e9, 'cut off after the write timeout and a sweep');
            $client->close();
            $server->stop();
            $serving->join();
        });
    }

    /**
     * @param \Closure(): Response $handler
     * @return array{Server, \Petrel\Coroutine\Coroutine, string}
     */
    private static function start(\Closure $handler, ServerConfig $config): array
    {
        $server = new Server(new ClosureHandler($handler), $config);
        $listener = listen('127.0.0.1:0');

        return [$server, go($server->serve(...), $listener, 5.0), $listener->getAddress()];
    }
}
