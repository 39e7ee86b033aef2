<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\ChannelClosedException;
use Petrel\Coroutine\CoroutineError;
use Petrel\Coroutine\TimeoutException;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;

final class ChannelTest extends AsyncTestCase
{
    public function testBufferedChannelIsFifoAndBlocksWhenFull(): void
    {
        $this->async(function (): void {
            $channel = new Channel(2);
            $channel->push(1);
            $channel->push(2);
            self::assertSame(2, $channel->count());
            $pushed = false;
            $producer = go(static function () use ($channel, &$pushed): void {
                $channel->push(3);
                $pushed = true;
            });
            self::assertFalse($pushed, 'push blocks on a full channel');
            self::assertSame(1, $channel->pop());
            $producer->join();
            self::assertTrue($pushed);
            self::assertSame(2, $channel->pop());
            self::assertSame(3, $channel->pop());
            self::assertTrue($channel->isEmpty());
        });
    }

    public function testRendezvousChannelHandsValuesDirectly(): void
    {
        $this->async(function (): void {
            $channel = new Channel();
            $consumer = go(static function () use ($channel): array {
                $got = [];
                for ($i = 0; $i < 3; $i++) {
                    $got[] = $channel->pop();
                }

                return $got;
            });
            foreach (['a', 'b', 'c'] as $value) {
                $channel->push($value);
            }
            self::assertSame(['a', 'b', 'c'], $consumer->join());
        });
    }

    public function testUnboundedNeverBlocks(): void
    {
        $this->async(function (): void {
            $channel = Channel::unbounded();
            for ($i = 0; $i < 10000; $i++) {
                $channel->push($i);
            }
            self::assertSame(10000, $channel->count());
            self::assertSame(0, $channel->pop());
        });
    }

    public function testNullAndFalseAreValues(): void
    {
        $this->async(function (): void {
            $channel = new Channel(2);
            $channel->push(null);
            $channel->push(false);
            self::assertNull($channel->pop());
            self::assertFalse($channel->pop());
        });
    }

    public function testClosingWakesAllWaitersWithAnException(): void
    {
        $this->async(function (): void {
            $channel = new Channel();
            $outcomes = [];
            $waiters = [];
            for ($i = 0; $i < 3; $i++) {
                $waiters[] = go(static function () use ($channel, &$outcomes): void {
                    try {
                        $channel->pop();
                    } catch (ChannelClosedException $e) {
                        $outcomes[] = $e->getMessage();
                    }
                });
            }
            $full = new Channel(0);
            $waiters[] = go(static function () use ($full, &$outcomes): void {
                try {
                    $full->push('x');
                } catch (ChannelClosedException $e) {
                    $outcomes[] = $e->getMessage();
                }
            });
            sleep(0.001);
            $channel->close();
            $full->close();
            foreach ($waiters as $waiter) {
                $waiter->join();
            }
            self::assertCount(4, $outcomes);
            self::assertStringContainsString('closed while waiting to pop', $outcomes[0]);
            self::assertStringContainsString('closed while waiting to push', $outcomes[3]);
        });
    }

    public function testBufferedValuesSurviveCloseThenPopThrows(): void
    {
        $this->async(function (): void {
            $channel = new Channel(3);
            $channel->push('left');
            $channel->close();
            self::assertSame('left', $channel->pop());
            try {
                $channel->push('more');
                self::fail('push to a closed channel');
            } catch (ChannelClosedException) {
            }
            $this->expectException(ChannelClosedException::class);
            $channel->pop();
        });
    }

    public function testPopAndPushTimeouts(): void
    {
        $this->async(function (): void {
            $channel = new Channel(1);
            try {
                $channel->pop(0.005);
                self::fail('pop should time out');
            } catch (TimeoutException) {
            }
            $channel->push(1);
            try {
                $channel->push(2, 0.005);
                self::fail('push should time out');
            } catch (TimeoutException) {
            }
            self::assertSame(1, $channel->pop());
            self::assertTrue($channel->isEmpty(), 'the timed-out push left nothing behind');
        });
    }

    public function testTimedOutWaiterIsSkipped(): void
    {
        $this->async(function (): void {
            $channel = new Channel();
            $late = go(static function () use ($channel): string {
                try {
                    $channel->pop(0.001);
                } catch (TimeoutException) {
                    return 'timed out';
                }

                return 'got value';
            });
            $patient = go(static fn () => $channel->pop());
            sleep(0.01);
            $channel->push('v');
            self::assertSame('timed out', $late->join());
            self::assertSame('v', $patient->join());
        });
    }

    public function testManyProducersAndConsumers(): void
    {
        $this->async(function (): void {
            $channel = new Channel(4);
            $producers = [];
            for ($p = 0; $p < 5; $p++) {
                $producers[] = go(static function () use ($channel, $p): void {
                    for ($i = 0; $i < 100; $i++) {
                        $channel->push($p * 1000 + $i);
                        if ($i % 10 === 0) {
                            sleep(0);
                        }
                    }
                });
            }
            $consumers = [];
            for ($c = 0; $c < 3; $c++) {
                $consumers[] = go(static function () use ($channel): array {
                    $got = [];
                    try {
                        while (true) {
                            $got[] = $channel->pop();
                        }
                    } catch (ChannelClosedException) {
                    }

                    return $got;
                });
            }
            foreach ($producers as $producer) {
                $producer->join();
            }
            $channel->close();
            $all = [];
            foreach ($consumers as $consumer) {
                $all = [...$all, ...$consumer->join()];
            }
            \sort($all);
            $expected = [];
            for ($p = 0; $p < 5; $p++) {
                for ($i = 0; $i < 100; $i++) {
                    $expected[] = $p * 1000 + $i;
                }
            }
            self::assertSame($expected, $all);
        });
    }

    public function testNegativeCapacityIsAnError(): void
    {
        $this->expectException(CoroutineError::class);
        new Channel(-1);
    }
}
