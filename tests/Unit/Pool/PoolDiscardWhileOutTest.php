<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;

/**
 * A connection closed with Pool::discard() while a lease or use() has it out: its return
 * at the end (the coroutine's deferred release, use()'s finally) must neither bring it back
 * into the pool nor close it a second time.
 */
final class PoolDiscardWhileOutTest extends AsyncTestCase
{
    private int $opened = 0;
    /** @var list<\stdClass> */
    private array $closed = [];

    public function testALeaseDiscardedDirectlyDoesNotComeBackWhenItsCoroutineEnds(): void
    {
        $this->async(function (): void {
            $pool = $this->pool();
            $first = go(static function () use ($pool): \stdClass {
                $connection = $pool->lease();
                $pool->discard($connection);

                return $connection;
            })->join();
            self::assertSame([$first], $this->closed, 'closed once, at discard()');
            self::assertSame(['name' => 'test', 'size' => 0, 'idle' => 0, 'busy' => 0, 'waiting' => 0, 'max' => 2, 'timeouts' => 0], $pool->stats());
            $next = go(static fn (): \stdClass => $pool->lease())->join();
            self::assertNotSame($first, $next);
            self::assertSame(2, $this->opened);
        });
    }

    public function testAConnectionDiscardedInsideUseIsNotReturned(): void
    {
        $this->async(function (): void {
            $pool = $this->pool();
            $first = $pool->use(static function (\stdClass $connection) use ($pool): \stdClass {
                $pool->discard($connection);

                return $connection;
            });
            self::assertSame([$first], $this->closed);
            self::assertSame(0, $pool->stats()['size']);
            self::assertNotSame($first, $pool->use(static fn (\stdClass $c): \stdClass => $c));
        });
    }

    /** @return Pool<\stdClass> */
    private function pool(): Pool
    {
        return new Pool(
            'test',
            function (): \stdClass {
                ++$this->opened;

                return new \stdClass();
            },
            new PoolConfig(max: 2),
            close: function (\stdClass $c): void {
                $this->closed[] = $c;
            },
        );
    }
}
