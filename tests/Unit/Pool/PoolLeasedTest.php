<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;

/** Pool::leased(): the current coroutine's lease if it has one, never a new one. */
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
}
