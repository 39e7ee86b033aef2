<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Coroutine\Channel;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisError;
use Petrel\Redis\RedisException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

#[CoversClass(RedisConnection::class)]
final class PubSubTest extends RedisTestCase
{
    /** @return iterable<string, array{int}> */
    public static function protocols(): iterable
    {
        yield 'RESP2' => [2];
        yield 'RESP3' => [3];
    }

    /**
     * Publishes $message on $channel until someone receives it: the subscriber in the
     * other coroutine may not have subscribed yet.
     */
    private static function publishWhenHeard(RedisConnection $publisher, string $channel, string $message): void
    {
        while ($publisher->publish($channel, $message) === 0) {
            sleep(0.001);
        }
    }

    #[DataProvider('protocols')]
    public function testMessagesFlowBetweenTwoConnectionsUntilTheCallbackReturnsFalse(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $subscriber = $this->connect(self::config()->withProtocol($protocol));
            $publisher = $this->connect();
            $listening = go(static function () use ($subscriber): array {
                $received = [];
                $subscriber->subscribe(['news', 'sport'], static function (string $channel, string $message) use (&$received): bool {
                    $received[] = [$channel, $message];

                    return $message !== 'stop';
                });

                return $received;
            });
            self::publishWhenHeard($publisher, 'news', "hello\0\r\n");
            self::assertSame(1, $publisher->publish('sport', 'goal'));
            self::assertSame(0, $publisher->publish('weather', 'ignored'));
            self::assertSame(1, $publisher->publish('news', 'stop'));
            self::assertSame([['news', "hello\0\r\n"], ['sport', 'goal'], ['news', 'stop']], $listening->join());

            // Out of subscriber mode, the connection runs commands again.
            self::assertTrue($subscriber->isUsable());
            self::assertSame('PONG', $subscriber->ping());
            self::assertSame(0, $publisher->publish('news', 'nobody listens now'));
        });
    }

    #[DataProvider('protocols')]
    public function testPatternSubscriptionAndUnsubscribeFromTheCallback(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $subscriber = $this->connect(self::config()->withProtocol($protocol));
            $publisher = $this->connect();
            $listening = go(static function () use ($subscriber): array {
                $received = [];
                $subscriber->psubscribe(['user.*'], static function (string $channel, string $message, string $pattern) use (&$received, $subscriber): void {
                    $received[] = [$channel, $message, $pattern];
                    if (\count($received) === 2) {
                        $subscriber->unsubscribe();
                    }
                });

                return $received;
            });
            self::publishWhenHeard($publisher, 'user.1', 'login');
            $publisher->publish('order.1', 'ignored');
            $publisher->publish('user.2', 'logout');
            self::assertSame([['user.1', 'login', 'user.*'], ['user.2', 'logout', 'user.*']], $listening->join());
            self::assertSame('PONG', $subscriber->ping());
        });
    }

    public function testUnsubscribeFromAnotherCoroutine(): void
    {
        $this->async(function (): void {
            $subscriber = $this->connect();
            $publisher = $this->connect();
            $received = new Channel(10);
            $listening = go(static function () use ($subscriber, $received): void {
                $subscriber->subscribe(['c'], static function (string $channel, string $message) use ($received): void {
                    $received->push($message);
                });
            });
            self::publishWhenHeard($publisher, 'c', 'one');
            self::assertSame('one', $received->pop());
            $subscriber->unsubscribe();
            $publisher->publish('c', 'after unsubscribe()');   // never reaches the callback
            $listening->join();
            self::assertTrue($subscriber->isUsable());
            self::assertSame('PONG', $subscriber->ping());
            self::assertTrue($received->isEmpty(), 'nothing after unsubscribe()');
        });
    }

    public function testCloseFromAnotherCoroutineEndsTheSubscriptionNormally(): void
    {
        $this->async(function (): void {
            $subscriber = $this->connect();
            $publisher = $this->connect();
            $listening = go(static function () use ($subscriber): string {
                $subscriber->subscribe(['c'], static fn (): bool => true);

                return 'returned';
            });
            self::publishWhenHeard($publisher, 'c', 'x');
            $subscriber->close();
            self::assertSame('returned', $listening->join());
            self::assertTrue($subscriber->isClosed());
            self::assertFalse($subscriber->isUsable());
        });
    }

    public function testASubscribedConnectionRefusesOtherCommands(): void
    {
        $this->async(function (): void {
            $subscriber = $this->connect();
            $publisher = $this->connect();
            $errors = [];
            $listening = go(static function () use ($subscriber, &$errors): void {
                $subscriber->subscribe(['c'], static function () use ($subscriber, &$errors): bool {
                    try {
                        $subscriber->get('k');
                    } catch (RedisError $e) {
                        $errors[] = $e->getMessage();
                    }

                    return false;
                });
            });
            try {
                $subscriber->set('k', 'v');
                self::fail('a command from another coroutine should be refused');
            } catch (RedisError $e) {
                self::assertStringContainsString('subscribed', $e->getMessage());
            }
            self::assertFalse($subscriber->isUsable());
            self::publishWhenHeard($publisher, 'c', 'x');
            $listening->join();
            self::assertCount(1, $errors);
            self::assertStringContainsString('subscribed', $errors[0]);
            try {
                $subscriber->command('SUBSCRIBE', 'c');
                self::fail('SUBSCRIBE through command() should be refused');
            } catch (RedisError $e) {
                self::assertStringContainsString('subscribe()', $e->getMessage());
            }
        });
    }

    /**
     * Outside subscriber mode the server answers UNSUBSCRIBE a b with a reply per channel
     * (RESP2), or with push data and no reply at all (RESP3): sent as a command, every later
     * reply went to the command after its own, or the call waited for ever.
     */
    #[DataProvider('protocols')]
    public function testUnsubscribeCommandsAreRefusedSoRepliesStayInStep(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->connect(self::config()->withProtocol($protocol));
            $redis->set('k', 'v');
            foreach (['UNSUBSCRIBE' => ['a', 'b'], 'punsubscribe' => ['p*', 'q*'], 'SUNSUBSCRIBE' => ['a', 'b'], 'unsubscribe' => []] as $name => $names) {
                try {
                    timeout(2.0, static fn () => $redis->command($name, ...$names));
                    self::fail("{$name} through command() should be refused");
                } catch (RedisError $e) {
                    self::assertStringStartsWith('Redis ' . \strtoupper($name) . ' cannot be sent through command()', $e->getMessage());
                }
                try {
                    $redis->pipeline(static fn ($pipeline) => $pipeline->command($name, ...$names));
                    self::fail("{$name} in a pipeline should be refused");
                } catch (RedisError) {
                }
                self::assertSame('v', $redis->get('k'));
                self::assertSame(['v', 'PONG'], [$redis->command('GET', 'k'), $redis->ping()]);
            }
            self::assertTrue($redis->isUsable());
        });
    }

    public function testACallbackExceptionEndsTheSubscriptionAndPropagates(): void
    {
        $this->async(function (): void {
            $subscriber = $this->connect();
            $publisher = $this->connect();
            $listening = go(static function () use ($subscriber): void {
                $subscriber->subscribe(['c'], static function (string $channel, string $message): never {
                    throw new \DomainException("bad message {$message}");
                });
            });
            self::publishWhenHeard($publisher, 'c', 'x');
            try {
                $listening->join();
                self::fail('the callback exception should propagate');
            } catch (\DomainException $e) {
                self::assertSame('bad message x', $e->getMessage());
            }
            self::assertTrue($subscriber->isUsable());
            self::assertSame('PONG', $subscriber->ping());
        });
    }

    public function testARefusedSubscriptionThrows(): void
    {
        $this->async(function (): void {
            $admin = $this->connect();
            $user = 'petrel-test-' . \bin2hex(\random_bytes(4));
            $admin->command('ACL', 'SETUSER', $user, 'on', '>pw', '~*', '+@all', 'resetchannels', '&allowed');
            try {
                $subscriber = $this->connect(self::config()->withPassword('pw', $user));
                $subscriber->subscribe(['forbidden'], static fn (): bool => false);
                self::fail('the subscription should be refused');
            } catch (RedisException $e) {
                self::assertSame('NOPERM', $e->kind());
                self::assertTrue($subscriber->isUsable());
                self::assertSame('PONG', $subscriber->ping());
            } finally {
                $admin->command('ACL', 'DELUSER', $user);
            }
        });
    }

    public function testADeadlineAroundSubscribeClosesTheConnection(): void
    {
        $this->async(function (): void {
            $subscriber = $this->connect();
            try {
                timeout(0.02, static fn () => $subscriber->subscribe(['quiet'], static fn (): bool => true));
                self::fail('timeout expected');
            } catch (\Petrel\Coroutine\TimeoutException) {
            }
            self::assertTrue($subscriber->isClosed());
            self::assertFalse($subscriber->isUsable());
        });
    }
}
