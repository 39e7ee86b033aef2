<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Socket;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\ClosedException;
use Petrel\Socket\ConnectException;
use Petrel\Socket\SocketError;
use Petrel\Socket\SocketException;
use Petrel\Socket\SocketServer;
use Petrel\Socket\StreamSocket;
use Petrel\Socket\TlsOptions;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\Socket\connect;
use function Petrel\Socket\listen;
use function Petrel\timeout;

final class SocketTest extends AsyncTestCase
{
    public function testEchoOverLoopback(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            self::assertMatchesRegularExpression('/^127\.0\.0\.1:\d+$/', $server->getAddress());
            $echo = go(static function () use ($server): void {
                $client = $server->accept();
                self::assertNotNull($client);
                while (($data = $client->read()) !== null) {
                    $client->write($data);
                }
                $client->close();
            });
            $client = connect($server->getAddress());
            self::assertSame($server->getAddress(), $client->getRemoteAddress());
            $client->write("hello\nworld\n");
            self::assertSame("hello\n", $client->readLine());
            self::assertSame('wor', $client->readExactly(3));
            self::assertSame("ld\n", $client->readLine());
            $client->end();
            self::assertNull($client->read(), 'server closed after our half-close');
            $echo->join();
            $client->close();
            $server->close();
        });
    }

    public function testManyConcurrentClients(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            $acceptor = go(static function () use ($server): void {
                while (($client = $server->accept()) !== null) {
                    go(static function () use ($client): void {
                        $line = $client->readLine();
                        sleep(0.01);
                        $client->end("re: {$line}");
                        $client->close();
                    });
                }
            });
            $clients = [];
            for ($i = 0; $i < 50; $i++) {
                $clients[] = go(static function () use ($server, $i): string {
                    $socket = connect($server->getAddress());
                    $socket->write("{$i}\n");
                    $reply = $socket->readLine() ?? '';
                    $socket->close();

                    return $reply;
                });
            }
            $start = \hrtime(true);
            foreach ($clients as $i => $client) {
                self::assertSame("re: {$i}\n", $client->join());
            }
            self::assertLessThan(1.0, (\hrtime(true) - $start) / 1e9, '50 clients waiting 10 ms each are served concurrently');
            $server->close();
            $acceptor->join();
        });
    }

    public function testWriteSuspendsUnderBackpressureUntilTheReaderDrains(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $payload = \random_bytes(8 * 1024 * 1024);
            $writeDone = false;
            $writer = go(static function () use ($a, $payload, &$writeDone): void {
                $a->write($payload);
                $writeDone = true;
                $a->end();
            });
            self::assertFalse($writeDone, 'an 8 MB write cannot complete before the peer reads');
            $received = '';
            while (($chunk = $b->read()) !== null) {
                $received .= $chunk;
            }
            $writer->join();
            self::assertTrue($writeDone); // @phpstan-ignore staticMethod.impossibleType (the writer coroutine set it by reference)
            self::assertSame(\strlen($payload), \strlen($received));
            self::assertTrue($payload === $received);
            $a->close();
            $b->close();
        });
    }

    public function testReaderAndWriterOnOneSocketFromTwoCoroutines(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $reader = go(static function () use ($a): string {
                $got = '';
                while (\strlen($got) < 4 * 100000) {
                    $got .= $a->read() ?? throw new \RuntimeException('early EOF');
                }

                return $got;
            });
            $writer = go(static function () use ($a): void {
                $a->write(\str_repeat('w', 4 * 100000));
            });
            $peer = go(static function () use ($b): void {
                $b->readExactly(4 * 100000);
                $b->write(\str_repeat('r', 4 * 100000));
            });
            $writer->join();
            $peer->join();
            self::assertSame(\str_repeat('r', 4 * 100000), $reader->join());
            $a->close();
            $b->close();
        });
    }

    public function testConcurrentWritesAreQueuedNotInterleaved(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $big = \str_repeat('A', 2 * 1024 * 1024);
            $first = go(static fn () => $a->write($big));
            $second = go(static fn () => $a->write('B'));
            $data = $b->readExactly(\strlen($big) + 1);
            $first->join();
            $second->join();
            self::assertSame($big . 'B', $data);
            $a->close();
            $b->close();
        });
    }

    /**
     * A write whose wait a deadline cuts short after part of it went out leaves the peer a
     * cut message: the socket closes, so nothing is written after it (a WebSocket's next
     * frame would be read as the rest of the cut one). A writer that times out while queued
     * behind it, nothing of its own sent, leaves the socket open.
     */
    public function testAWriteCutShortMidMessageClosesTheSocketAndOneNotBegunDoesNot(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $big = \str_repeat('A', 8 * 1024 * 1024); // more than the kernel's buffers hold
            $first = go(static function () use ($a, $big): void {
                try {
                    timeout(0.3, static fn () => $a->write($big));
                    self::fail('the peer does not read: the write must time out');
                } catch (TimeoutException) {
                }
            });
            try {
                timeout(0.1, static fn () => $a->write('queued'));
                self::fail('the queued write waits for its turn');
            } catch (TimeoutException) {
            }
            self::assertFalse($a->isClosed(), 'a write that sent nothing leaves the socket open');
            $first->join();
            self::assertTrue($a->isClosed(), 'part of the message went out: the socket is closed');
            try {
                $a->write('B');
                self::fail('nothing may be written after a cut message');
            } catch (ClosedException) {
            }
            $received = 0;
            while (($chunk = $b->read()) !== null) {
                self::assertSame(\str_repeat('A', \strlen($chunk)), $chunk);
                $received += \strlen($chunk);
            }
            self::assertGreaterThan(0, $received);
            self::assertLessThan(\strlen($big), $received, 'the peer sees the cut message end with the connection');
            $b->close();
        });
    }

    public function testTwoConcurrentReadersIsAnError(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $first = go(static fn () => $a->read());
            try {
                $a->read();
                self::fail('expected an error');
            } catch (SocketError $e) {
                self::assertStringContainsString('already reading', $e->getMessage());
            }
            $b->write('x');
            self::assertSame('x', $first->join());
            $a->close();
            $b->close();
        });
    }

    public function testCancellingACoroutineBlockedInReadFreesTheSocket(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $blocked = go(static fn () => $a->read());
            $blocked->cancel();
            try {
                $blocked->join();
                self::fail('expected cancellation');
            } catch (CancelledException) {
            }
            $b->write('after');
            self::assertSame('after', $a->read(), 'the socket is usable by another coroutine');
            $a->close();
            $b->close();
        });
    }

    public function testDeadlineReachesSocketRead(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            try {
                timeout(0.01, static fn () => $a->read());
                self::fail('expected a timeout');
            } catch (TimeoutException) {
            }
            $a->close();
            $b->close();
        });
    }

    public function testClosingWakesABlockedReaderWithClosedException(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $reader = go(static fn () => $a->read());
            $a->close();
            $this->expectException(ClosedException::class);
            try {
                $reader->join();
            } finally {
                $b->close();
            }
        });
    }

    public function testReadExactlyAtEofThrows(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $b->end('abc');
            try {
                $a->readExactly(10);
                self::fail('expected ClosedException');
            } catch (ClosedException $e) {
                self::assertStringContainsString('after 3 of 10 expected bytes', $e->getMessage());
            }
            $a->close();
            $b->close();
        });
    }

    public function testReadLineTooLongAndRestAtEof(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $b->write(\str_repeat('x', 100));
            try {
                $a->readLine("\n", 50);
                self::fail('expected SocketException');
            } catch (SocketException $e) {
                self::assertStringContainsString('No line delimiter within 50 bytes', $e->getMessage());
            }
            $b->end("\r\nlast");
            self::assertSame(\str_repeat('x', 100) . "\r\n", $a->readLine("\r\n"));
            self::assertSame('last', $a->readLine());
            self::assertNull($a->readLine());
            $a->close();
            $b->close();
        });
    }

    public function testWriteToAPeerThatWentAwayFails(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $b->close();
            $this->expectException(SocketException::class);
            for ($i = 0; $i < 100; $i++) {
                $a->write(\str_repeat('x', 65536));
            }
        });
    }

    public function testIsAliveSeesAPeerThatClosedAnIdleConnection(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            self::assertTrue($a->isAlive());
            $b->write('unexpected');
            sleep(0.001);
            self::assertFalse($a->isAlive(), 'unsolicited bytes: out of step');
            self::assertSame('unexpected', $a->readExactly(10), 'the byte peeked is not lost');
            $b->close();
            sleep(0.001);
            self::assertFalse($a->isAlive(), 'the peer is gone');
            $a->close();
        });
    }

    public function testIsAliveOverTcpSeesFinAndReset(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            $finClient = connect($server->getAddress());
            $finPeer = $server->accept();
            $resetClient = connect($server->getAddress());
            $resetPeer = $server->accept();
            self::assertNotNull($finPeer);
            self::assertNotNull($resetPeer);
            self::assertTrue($finClient->isAlive(), 'a live idle connection');
            self::assertTrue($finClient->isAlive(), 'asking twice changes nothing');
            self::assertTrue($resetClient->isAlive());

            $finPeer->close(); // FIN
            $resetClient->write('unread'); // closing with unread bytes sends RST, not FIN
            self::assertSame('u', $resetPeer->readExactly(1));
            $resetPeer->close();
            $dead = static fn (StreamSocket $socket): bool => !$socket->isAlive();
            self::waitUntil(static fn (): bool => $dead($finClient));
            self::waitUntil(static fn (): bool => $dead($resetClient));
            self::assertFalse($finClient->isAlive(), 'the peer closed: still closed when asked again');
            self::assertFalse($resetClient->isAlive(), 'the peer reset: still dead when asked again');
            $finClient->close();
            $resetClient->close();
            $server->close();
        });
    }

    public function testExpectReplyReadsTheReplyWhetherItIsThereOrNotAndSeesEof(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $answer = go(static function () use ($b): void {
                self::assertSame('ping', $b->readExactly(4));
                $b->write('pong');
            });
            $a->write('ping');
            $a->expectReply();
            self::assertSame('pong', $a->read(), 'the reply arrives while the reader waits');
            $answer->join();

            $b->write('early');
            sleep(0.001);
            $a->expectReply();
            self::assertSame('early', $a->read(), 'a reply already there is read at once');

            $a->expectReply();
            $b->close();
            self::assertNull($a->read(), 'EOF instead of a reply');
            $a->close();
        });
    }

    public function testAClientReadWatcherStaysEnabledButUnreferencedBetweenReplies(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $driver = Scheduler::get()->driver;
            $readable = static fn (): array => \array_values(\array_filter($driver->watchers(), static fn (array $w): bool => $w['type'] === 'readable'));
            $answer = go(static function () use ($b): void {
                self::assertSame('ping', $b->readExactly(4));
                $b->write('pong');
            });
            $a->write('ping');
            $a->expectReply();
            self::assertSame('pong', $a->read());
            $answer->join();
            $watchers = $readable();
            self::assertCount(2, $watchers);
            foreach ($watchers as $watcher) {
                // Enabled: no enable()/disable() per round trip. Unreferenced: an idle
                // connection (a pooled one) does not keep the loop running.
                self::assertSame(['enabled' => true, 'referenced' => false], \array_intersect_key($watcher, ['enabled' => 0, 'referenced' => 0]));
            }

            $b->write('unasked');
            sleep(0.01); // bytes nobody reads: the watcher's first call disables it, no spinning
            self::assertSame([true, false], \array_column($readable(), 'enabled'), "b's (made first) waits on; a's is off");
            self::assertSame('unasked', $a->read(), 'and the next read still gets them');
            $a->close();
            $b->close();
        });
    }

    public function testConnectionRefusedIsAClearError(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            $address = $server->getAddress();
            $server->close();
            try {
                connect($address);
                self::fail('expected ConnectException');
            } catch (ConnectException $e) {
                self::assertStringContainsString("Could not connect to {$address}", $e->getMessage());
                self::assertStringContainsStringIgnoringCase('refused', $e->getMessage());
            }
        });
    }

    public function testUnknownHostAndMalformedAddress(): void
    {
        $this->async(function (): void {
            try {
                connect('no-such-host.invalid:80');
                self::fail('expected ConnectException');
            } catch (ConnectException $e) {
                self::assertStringContainsString('Could not resolve host name "no-such-host.invalid"', $e->getMessage());
            }
            $this->expectException(SocketError::class);
            connect('localhost');
        });
    }

    public function testListenOnAPortInUseFailsClearly(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            try {
                listen($server->getAddress());
                self::fail('expected SocketException');
            } catch (SocketException $e) {
                self::assertStringContainsString('Address already in use', $e->getMessage());
            } finally {
                $server->close();
            }
        });
    }

    public function testUnixDomainSocketsAndLocalhostName(): void
    {
        $this->async(function (): void {
            $path = \sys_get_temp_dir() . '/petrel-test-' . \getmypid() . '.sock';
            $server = listen("unix://{$path}");
            $echo = go(static function () use ($server): void {
                $client = $server->accept();
                $client?->end((string) $client->readLine());
                $client?->close();
            });
            $client = connect("unix://{$path}");
            $client->write("over unix\n");
            self::assertSame("over unix\n", $client->readLine());
            $echo->join();
            $client->close();
            $server->close();
            self::assertFileDoesNotExist($path);

            $tcp = listen('127.0.0.1:0');
            $port = \explode(':', $tcp->getAddress())[1];
            $accepted = go(static fn () => $tcp->accept());
            $byName = connect("localhost:{$port}");
            $accepted->join()?->close();
            $byName->close();
            $tcp->close();
        });
    }

    public function testCloseWakesAnAcceptingCoroutine(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            $acceptor = go(static fn () => $server->accept());
            $server->close();
            self::assertNull($acceptor->join());
        });
    }

    public function testTlsHandshakeWithAPlainTextServerTimesOut(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            $silent = go(static function () use ($server): void {
                $client = $server->accept();
                \Petrel\sleep(0.5); // accepts, never speaks TLS
                $client?->close();
            });
            $start = \microtime(true);
            try {
                connect("tls://{$server->getAddress()}", (new \Petrel\Socket\ConnectOptions(connectTimeout: 0.1))->withTls((new TlsOptions())->withoutVerification()));
                self::fail('expected a ConnectException');
            } catch (ConnectException $e) {
                self::assertStringContainsString('TLS handshake with', $e->getMessage());
            }
            self::assertLessThan(0.4, \microtime(true) - $start);
            $silent->join();
            $server->close();
        });
    }

    public function testTlsClient(): void
    {
        $dir = \sys_get_temp_dir() . '/petrel-tls-' . \getmypid();
        @\mkdir($dir);
        $key = \openssl_pkey_new(['private_key_bits' => 2048, 'private_key_type' => \OPENSSL_KEYTYPE_RSA]);
        self::assertNotFalse($key);
        $csr = \openssl_csr_new(['commonName' => 'localhost'], $key);
        self::assertInstanceOf(\OpenSSLCertificateSigningRequest::class, $csr);
        $cert = \openssl_csr_sign($csr, null, $key, 1);
        self::assertNotFalse($cert);
        \openssl_x509_export_to_file($cert, "{$dir}/cert.pem");
        \openssl_pkey_export_to_file($key, "{$dir}/key.pem");
        $process = \proc_open([\PHP_BINARY, __DIR__ . '/fixtures/tls-echo-server.php', $dir], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        try {
            $port = (int) \fgets($pipes[1]);
            if ($port === 0) {
                self::fail('The TLS fixture server did not start: ' . \stream_get_contents($pipes[2]));
            }
            $this->async(function () use ($port, $dir): void {
                $socket = connect("tls://127.0.0.1:{$port}", (new \Petrel\Socket\ConnectOptions())->withTls(
                    (new TlsOptions())->withPeerName('localhost')->withCaFile("{$dir}/cert.pem"),
                ));
                self::assertTrue($socket->isTls());
                $socket->write("secret\n");
                self::assertSame("echo: secret\n", $socket->readLine());
                $socket->close();
            });
        } finally {
            \proc_terminate($process);
            \proc_close($process);
            @\unlink("{$dir}/cert.pem");
            @\unlink("{$dir}/key.pem");
            @\rmdir($dir);
        }
    }

    /** Waits (up to 5 s, polling the loop) until $condition holds; fails the test if it never does. */
    private static function waitUntil(\Closure $condition): void
    {
        $deadline = \microtime(true) + 5.0;
        while (!$condition()) {
            if (\microtime(true) > $deadline) {
                self::fail('The condition did not hold within 5 s');
            }
            sleep(0.001);
        }
    }

    /** @return array{StreamSocket, StreamSocket} */
    private static function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);

        return [new StreamSocket($pair[0], 'a'), new StreamSocket($pair[1], 'b')];
    }
}
