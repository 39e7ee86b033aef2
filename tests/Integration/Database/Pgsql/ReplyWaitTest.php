<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Coroutine\Scheduler;
use Petrel\Database\Pgsql\Internal\PgSocket;
use Petrel\Loop\DriverFactory;
use Petrel\Tests\Support\CountingDriver;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;

/**
 * A query's reply is waited for in place when the loop has nothing else to do
 * (Scheduler::awaitReadable(), as the MySQL and Redis clients wait), and through the loop
 * whenever it has: timers and other coroutines run while a slow query is out.
 */
#[CoversClass(PgSocket::class)]
final class ReplyWaitTest extends PgsqlTestCase
{
    private CountingDriver $driver;

    protected function setUp(): void
    {
        parent::setUp();
        $this->useDriver($this->driver = new CountingDriver(DriverFactory::create()));
    }

    protected function tearDown(): void
    {
        parent::tearDown();
        Scheduler::reset();
    }

    public function testRepliesAwaitedWhileTheLoopIsIdleTakeNoLoopTurn(): void
    {
        if (\getenv('PETREL_DRIVER') === 'select') {
            self::markTestSkipped('the select driver always waits through the loop');
        }
        $this->async(function (): void {
            $db = $this->connect();
            $this->driver->readableCallbacks = 0;
            for ($i = 0; $i < 20; $i++) {
                self::assertSame([['n' => $i]], $db->query('SELECT ?::int AS n', [$i]));
            }
            self::assertSame([['t' => 'text']], $db->query("SELECT 'text' AS t"));
            // At most the first reply goes through the loop (if the connection's set-up left this
            // coroutine resumed by something other than its read callback); from then on the
            // read callback, which does nothing after the wake, is what resumed it, so every
            // reply, prepared statements' included, is waited for in place. Through the loop,
            // each of the 22 round trips would run the callback.
            self::assertLessThanOrEqual(1, $this->driver->readableCallbacks, 'at most the first of 22 round trips went through the loop');
        });
    }

    public function testTimersAndOtherCoroutinesRunWhileASlowQueryIsOut(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $db->query('SELECT 1'); // resumed by its read callback: the next wait may be in place
            $ticks = 0;
            $timer = Scheduler::get()->driver->repeat(0.01, static function () use (&$ticks): void {
                $ticks++;
            });
            $woke = null;
            $other = go(static function () use (&$woke): void {
                sleep(0.05);
                $woke = \hrtime(true);
            });
            $start = \hrtime(true);
            self::assertSame([['slept' => true]], $db->query('SELECT pg_sleep(0.3) IS NOT NULL AS slept'));
            $elapsed = (\hrtime(true) - $start) / 1e9;
            Scheduler::get()->driver->cancel($timer);
            $other->join();
            self::assertGreaterThanOrEqual(0.3, $elapsed);
            self::assertGreaterThanOrEqual(10, $ticks, "a 10 ms timer ticked {$ticks} times during a 0.3 s query");
            self::assertNotNull($woke);
            self::assertLessThan(0.2, ($woke - $start) / 1e9, 'a coroutine sleeping 50 ms woke while the query was out');
        });
    }
}
