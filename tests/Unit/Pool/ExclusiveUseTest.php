<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Pool\ExclusiveUse;
use Petrel\Tests\Support\AsyncTestCase;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;

/** The one-coroutine-at-a-time check the MySQL, PostgreSQL and Redis connections share. */
#[CoversClass(ExclusiveUse::class)]
final class ExclusiveUseTest extends AsyncTestCase
{
    public function testASecondCoroutineGetsTheConnectionsOwnErrorNamingTheHolder(): void
    {
        $this->async(function (): void {
            $use = new ExclusiveUse(static fn (string $who, bool $caller): \Error => new \Error("{$who}|" . ($caller ? 'caller' : 'other')));
            $holder = go(static function () use ($use): int {
                $use->enter();

                return \Petrel\Coroutine\Scheduler::get()->currentOrMain()->id;
            });
            $id = $holder->join();
            self::assertTrue($use->busy());
            self::assertFalse($use->heldByCaller());
            foreach ([$use->enter(...), $use->check(...)] as $attempt) {
                try {
                    $attempt();
                    self::fail('entered a held connection');
                } catch (\Error $e) {
                    self::assertSame("coroutine #{$id}|other", $e->getMessage());
                }
            }
            $use->leave();
            $use->check();
            $use->enter();
            self::assertTrue($use->heldByCaller());
            try {
                $use->enter();
                self::fail('entered twice');
            } catch (\Error $e) {
                self::assertStringEndsWith('|caller', $e->getMessage());
            }
            $use->leave();
            self::assertFalse($use->busy());
        });
    }

    public function testTheMainContextIsNamedAsSuch(): void
    {
        self::assertSame('the main context', ExclusiveUse::who(0));
        self::assertSame('coroutine #7', ExclusiveUse::who(7));
    }
}
