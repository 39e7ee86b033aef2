<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;

/**
 * Pool::leased(): the current coroutine's lease if it has one, never a new one; and
 * lease()'s $kept, which says the same of the connection lease() returns.
 */
final class PoolLeasedTest extends AsyncTestCase
{
    public function testGivesTheCoroutinesLeaseOrNullAndNeverAcquires(): void
    {
        $this->async(function (): void {
            $opened = 0;
            $pool = new Pool('test', static function () use (&$opened): \stdClass {
                ++$opened;

                return new \stdClass();
            }, new PoolConfig(max: 2));
            [$before, $lease, $after] = go(static fn (): array => [$pool->leased(), $pool->lease(), $pool->leased()])->join();
            self::assertNull($before, 'no lease yet: null, nothing acquired');
            self::assertSame($lease, $after);
            self::assertSame(1, $opened);
            self::assertNull(go(static fn () => $pool->leased())->join(), 'another coroutine has none');
            self::assertSame(1, $pool->stats()['idle'], 'the lease went back when its coroutine ended');
            self::assertNull(go(static fn () => $pool->leased())->join());
            self::assertSame(1, $pool->stats()['idle'], 'leased() took nothing from the pool');
        });
    }

    public function testLeaseSaysWhetherTheCoroutineHeldItAlready(): void
    {
        $this->async(function (): void {
            $pool = new Pool('test', static fn (): \stdClass => new \stdClass(), new PoolConfig(max: 2));
            [$first, $firstKept, $second, $secondKept] = go(static function () use ($pool): array {
                $first = $pool->lease($firstKept);
                $second = $pool->lease($secondKept);

                return [$first, $firstKept, $second, $secondKept];
            })->join();
            self::assertFalse($firstKept, 'just checked out');
            self::assertSame($first, $second);
            self::assertTrue($secondKept, 'the lease it held');
            $pool->lease($kept);
            self::assertFalse($kept, 'the main context had none; the coroutine\'s went back at its end');
            $pool->releaseLease();
        });
    }

    public function testALeaseAskedForBetweenSweepsIsKeptAndOneLeftAloneGoesBack(): void
    {
        $this->async(function (): void {
            $pool = new Pool('test', static fn (): \stdClass => new \stdClass(), new PoolConfig(max: 2, leaseIdleTimeout: 0.02));
            $asked = go(static function () use ($pool): array {
                $first = $pool->lease();
                $answers = [];
                for ($i = 0; $i < 15; ++$i) { // across several sweeps, never one without a lease()
                    sleep(0.01);
                    $answers[] = [$pool->lease($kept) === $first, $kept];
                }

                return $answers;
            });
            $leftAlone = go(static function () use ($pool): array {
                $first = $pool->lease();
                sleep(0.1); // two sweeps and more without a lease(), while the other still asks: taken back
                $again = $pool->lease($kept);

                return [$again === $first, $kept];
            });
            self::assertSame(\array_fill(0, 15, [true, true]), $asked->join(), 'the same lease, kept, every time');
            self::assertSame([true, false], $leftAlone->join(), 'the same connection, idle in the pool, checked out again');
            self::assertSame(2, $pool->stats()['idle']);
        });
    }
}
