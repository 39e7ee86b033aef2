<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Closure;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\Internal\RespEncoder;
use Petrel\Redis\RedisConnectionException;
use Petrel\Redis\RedisException;
use Petrel\Redis\RedisPipeline;
use Petrel\Redis\RedisProtocolException;
use Petrel\Socket\Socket;
use Petrel\Tests\Support\AsyncTestCase;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\Socket\listen;

/** The client against a scripted fake server on loopback: no Redis needed. */
#[CoversClass(RedisConnection::class)]
final class MisbehavingServerTest extends AsyncTestCase
{
    /**
     * Runs $script against one client of a fake server while $client runs.
     *
     * @param Closure(Socket): void $script
     * @param Closure(RedisConfig): void $client
     */
    private function withServer(Closure $script, Closure $client): void
    {
        $server = listen('127.0.0.1:0');
        $serving = go(static function () use ($server, $script): void {
            $socket = $server->accept();
            self::assertNotNull($socket);
            try {
                $script($socket);
            } finally {
                $socket->close();
            }
        });
        [$host, $port] = \explode(':', $server->getAddress());
        try {
            $client(new RedisConfig($host, (int) $port, connectTimeout: 2.0));
        } finally {
            $serving->join();
            $server->close();
        }
    }

    public function testAServerThatNeverAnswersTheHandshakeTimesOut(): void
    {
        $this->async(function (): void {
            $this->withServer(
                static function (Socket $socket): void {
                    while ($socket->read() !== null) {
                        // swallow AUTH, answer nothing, until the client gives up
                    }
                },
                static function (RedisConfig $config): void {
                    $start = \hrtime(true);
                    try {
                        RedisConnection::connect($config->withPassword('secret')->withConnectTimeout(0.1));
                        self::fail('the handshake should time out');
                    } catch (RedisConnectionException $e) {
                        self::assertStringContainsString("Redis at {$config->endpoint()} did not complete the handshake (AUTH) within the connect timeout of 0.1 s", $e->getMessage());
                        self::assertStringNotContainsString('secret', $e->getMessage());
                    }
                    self::assertLessThan(1.0, (\hrtime(true) - $start) / 1e9);
                },
            );
        });
    }

    public function testTlsAgainstAPlainTextServerTimesOut(): void
    {
        $this->async(function (): void {
            $this->withServer(
                static function (Socket $socket): void {
                    while ($socket->read() !== null) {
                        // a plain-text server: the ClientHello is not a command it answers
                    }
                },
                static function (RedisConfig $config): void {
                    try {
                        RedisConnection::connect($config->withTls()->withConnectTimeout(0.1));
                        self::fail('the TLS handshake should time out');
                    } catch (RedisConnectionException $e) {
                        self::assertStringContainsString('did not complete the handshake (TLS) within', $e->getMessage());
                    }
                },
            );
        });
    }

    public function testInvalidRespClosesTheConnection(): void
    {
        $this->async(function (): void {
            $this->withServer(
                static function (Socket $socket): void {
                    $socket->read();
                    $socket->write("?not resp\r\n");
                    $socket->read();
                },
                static function (RedisConfig $config): void {
                    $redis = RedisConnection::connect($config);
                    try {
                        $redis->ping();
                        self::fail('RedisProtocolException expected');
                    } catch (RedisProtocolException $e) {
                        self::assertStringStartsWith("Redis at {$config->endpoint()} sent an invalid reply: ", $e->getMessage());
                    }
                    self::assertTrue($redis->isClosed());
                    self::assertFalse($redis->isUsable());
                },
            );
        });
    }

    public function testTheServerClosingMidReply(): void
    {
        $this->async(function (): void {
            $this->withServer(
                static function (Socket $socket): void {
                    $socket->read();
                    $socket->write("\$10\r\nabc");
                },
                static function (RedisConfig $config): void {
                    $redis = RedisConnection::connect($config);
                    try {
                        $redis->get('k');
                        self::fail('RedisConnectionException expected');
                    } catch (RedisConnectionException $e) {
                        self::assertSame("Redis at {$config->endpoint()} closed the connection", $e->getMessage());
                    }
                    self::assertFalse($redis->isUsable());
                },
            );
        });
    }

    public function testRepliesSplitIntoSingleBytesAndPushDataInBetween(): void
    {
        $this->async(function (): void {
            $this->withServer(
                static function (Socket $socket): void {
                    $received = '';
                    while (\substr_count($received, "\r\n") < 17) { // SET k v, GET k and HGETALL h, all in
                        $received .= (string) $socket->read();
                    }
                    // A RESP3 push (client-side caching invalidation) arrives between two replies.
                    $replies = "+OK\r\n>2\r\n\$10\r\ninvalidate\r\n*0\r\n\$5\r\nv\r\n\0x\r\n"
                        . "*4\r\n\$1\r\nf\r\n\$1\r\n1\r\n\$1\r\ng\r\n\$1\r\n2\r\n";
                    foreach (\str_split($replies) as $byte) {
                        $socket->write($byte);
                    }
                    $socket->read();
                },
                static function (RedisConfig $config): void {
                    $redis = RedisConnection::connect($config);
                    $results = $redis->pipeline(static function (RedisPipeline $pipe): void {
                        $pipe->set('k', 'v')->get('k')->hgetall('h');
                    });
                    self::assertSame([true, "v\r\n\0x", ['f' => '1', 'g' => '2']], $results);
                    self::assertTrue($redis->isUsable());
                    $redis->close();
                },
            );
        });
    }

    public function testGetSendsTheEncodersBytesAndReadsEveryShapeOfReply(): void
    {
        $key = "k\r\n\0é";
        $this->async(function () use ($key): void {
            $this->withServer(
                static function (Socket $socket) use ($key): void {
                    $command = RespEncoder::encode(['GET', $key]);
                    $replies = [
                        ["\$5\r\nhello\r\n"],                               // whole: RespParser::take()
                        ["\$5\r\nhe", "llo\r\n"],                           // in two reads
                        [">2\r\n\$10\r\ninvalidate\r\n*0\r\n\$1\r\nv\r\n"], // RESP3 push data first
                        ["\$-1\r\n"],
                        ["-WRONGTYPE Operation against a key\r\n"],
                        [":1\r\n"],                                          // after the error: still usable
                    ];
                    foreach ($replies as $pieces) {
                        self::assertSame($command, $socket->readExactly(\strlen($command)));
                        foreach ($pieces as $piece) {
                            $socket->write($piece);
                            sleep(0.01); // lets the client read each piece on its own
                        }
                    }
                    $socket->read();
                },
                static function (RedisConfig $config) use ($key): void {
                    $redis = RedisConnection::connect($config);
                    self::assertSame('hello', $redis->get($key));
                    self::assertSame('hello', $redis->get($key));
                    self::assertSame('v', $redis->get($key));
                    self::assertNull($redis->get($key));
                    try {
                        $redis->get($key);
                        self::fail('RedisException expected');
                    } catch (RedisException $e) {
                        self::assertSame('WRONGTYPE', $e->kind());
                    }
                    self::assertTrue($redis->isUsable());
                    self::assertSame(1, $redis->command('GET', $key));
                    $redis->close();
                },
            );
        });
    }
}
