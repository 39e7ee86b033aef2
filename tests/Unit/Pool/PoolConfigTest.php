<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Pool\PoolExhaustedException;
use Petrel\Tests\Support\AsyncTestCase;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * Timeouts at their limits: NaN (from a bad environment variable, a division by zero) is
 * refused where it is given, naming the field, instead of passing the `<= 0` checks (NaN
 * compares false) and failing later far away; INF means "for ever" and works.
 */
#[CoversClass(PoolConfig::class)]
final class PoolConfigTest extends AsyncTestCase
{
    /** @return iterable<string, array{string}> */
    public static function timeouts(): iterable
    {
        foreach (['acquireTimeout', 'idleTimeout', 'maxLifetime', 'healthCheckAfter', 'leaseIdleTimeout'] as $name) {
            yield $name => [$name];
        }
    }

    #[DataProvider('timeouts')]
    public function testANanTimeoutIsRefusedByName(string $name): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage("Pool timeout {$name} is NaN");
        (new PoolConfig())->with(...[$name => \NAN]);
    }

    public function testANanTimeoutIsRefusedByTheConstructor(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('acquireTimeout is NaN');
        new PoolConfig(acquireTimeout: \NAN);
    }

    public function testInfiniteTimeoutsMeanForEver(): void
    {
        $this->async(function (): void {
            $config = new PoolConfig(max: 1, idleTimeout: \INF, maxLifetime: \INF, healthCheckAfter: \INF, leaseIdleTimeout: \INF);
            $pool = new Pool('inf', static fn (): \stdClass => new \stdClass(), $config);
            $leased = $pool->lease();
            $pool->releaseLease();
            self::assertSame($leased, $pool->acquire(), 'an idle connection is kept and reused');
            try {
                $pool->acquire(0.01);
                self::fail('the only connection is taken');
            } catch (PoolExhaustedException) {
            }
            $pool->close();
        });
    }
}
