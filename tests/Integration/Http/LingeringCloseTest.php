<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\HttpLimits;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Socket\SocketException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\Socket\listen;

/**
 * A 413 to a client still uploading: the server half-closes and drains instead of closing
 * with unread bytes (which sends a reset that can destroy the response in flight).
 */
final class LingeringCloseTest extends AsyncTestCase
{
    private const BODY = 16 * 1024 * 1024;

    public function testAClientStillUploadingReadsTheWhole413BeforeTheClose(): void
    {
        $this->async(function (): void {
            $config = new ServerConfig(limits: new HttpLimits(maxBodyBytes: 1024 * 1024));
            $server = new Server(new ClosureHandler(static fn (): Response => Response::text('ok')), $config);
            $listener = listen('127.0.0.1:0');
            $serving = go($server->serve(...), $listener, 5.0);
            try {
                $chunk = \str_repeat('x', 256 * 1024);
                for ($run = 0; $run < 10; $run++) {
                    $client = RawHttp::connect($listener->getAddress());
                    // Like curl without Expect: send it all, then read the answer.
                    try {
                        $client->write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: " . self::BODY . "\r\n\r\n");
                        for ($sent = 0; $sent < self::BODY; $sent += \strlen($chunk)) {
                            $client->write($chunk);
                        }
                    } catch (SocketException) {
                        // A reset while uploading: the read below tells whether the answer survived.
                    }
                    try {
                        $response = RawHttp::readResponse($client);
                    } catch (SocketException $error) {
                        $response = null;
                    }
                    self::assertSame(413, $response?->status, "run {$run}: the response survived the close");
                    self::assertStringStartsWith('413', $response->body);
                    $client->close();
                }
            } finally {
                $server->stop();
                $serving->join();
            }
        }, 60.0);
    }
}
