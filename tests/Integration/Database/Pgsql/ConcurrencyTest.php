<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\TimeoutException;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Internal\Exchange;
use Petrel\Database\Pgsql\Internal\Link;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Pool\ExclusiveUse;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\parallel;
use function Petrel\sleep;
use function Petrel\timeout;

#[CoversClass(PgsqlConnection::class)]
#[CoversClass(Exchange::class)]
#[CoversClass(Link::class)]
#[CoversClass(ExclusiveUse::class)]
final class ConcurrencyTest extends PgsqlTestCase
{
    public function testASecondCoroutineGetsADatabaseError(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $first = go(static fn () => $db->query('SELECT pg_sleep(0.2), 1 AS v'));
            try {
                $db->query('SELECT 2');
                self::fail('two coroutines shared a connection');
            } catch (DatabaseError $e) {
                self::assertSame("PostgreSQL connection already in use by coroutine #{$first->id}; use a Pool", $e->getMessage());
            }
            self::assertFalse($db->isUsable(), 'busy');
            self::assertSame(1, $first->join()[0]['v']);
            self::assertTrue($db->isUsable());
        });
    }

    public function testFiftyCoroutinesEachWithItsOwnConnectionRunConcurrently(): void
    {
        $this->async(function (): void {
            $begin = \hrtime(true);
            $connections = parallel(\array_fill(0, 50, fn () => $this->connect()));
            $start = \hrtime(true);
            $pids = parallel(\array_map(
                static fn (PgsqlConnection $db) => static fn () => $db->query('SELECT pg_sleep(0.1), pg_backend_pid() AS pid')[0]['pid'],
                $connections,
            ));
            $elapsed = (\hrtime(true) - $start) / 1e9;
            self::assertCount(50, \array_unique($pids));
            self::assertLessThan(1.0, $elapsed, "50 × pg_sleep(0.1) took {$elapsed} s: they did not overlap");
            self::assertLessThan(5.0, (\hrtime(true) - $begin) / 1e9, 'connecting 50 and querying');
        });
    }

    public function testTimeoutMidQueryThrowsAtOnceAndRetiresTheConnection(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $monitor = $this->connect();
            $pid = $db->query('SELECT pg_backend_pid() AS pid')[0]['pid'];
            $start = \hrtime(true);
            try {
                timeout(0.2, static fn () => $db->query('SELECT pg_sleep(5)'));
                self::fail('no timeout');
            } catch (TimeoutException) {
            }
            $elapsed = (\hrtime(true) - $start) / 1e9;
            self::assertLessThan(0.4, $elapsed);
            self::assertFalse($db->isUsable());
            self::assertFalse($db->inTransaction());
            try {
                $db->query('SELECT 1');
                self::fail('an interrupted connection was reused');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('interrupted by Petrel\Coroutine\TimeoutException', $e->getMessage());
            }
            // The server notices the client left (client_connection_check_interval = 1 s) and
            // ends the backend well before pg_sleep(5) would have.
            $gone = false;
            for ($i = 0; $i < 60 && !$gone; $i++) {
                sleep(0.05);
                $gone = $monitor->query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ?', [$pid])[0]['n'] === 0;
            }
            self::assertTrue($gone, 'the server-side query was not abandoned within 3 s');
        });
    }

    public function testCancellingTheCoroutineMidQuery(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $worker = go(static fn () => $db->query('SELECT pg_sleep(5)'));
            sleep(0.05);
            $worker->cancel();
            try {
                $worker->join();
                self::fail('not cancelled');
            } catch (CancelledException) {
            }
            self::assertFalse($db->isUsable());
        });
    }

    public function testTerminatedBackendIsAConnectionException(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $admin = $this->connect();
            $pid = $db->query('SELECT pg_backend_pid() AS pid')[0]['pid'];
            $query = go(static fn () => $db->query('SELECT pg_sleep(5)'));
            sleep(0.1);
            self::assertTrue($admin->query('SELECT pg_terminate_backend(?)', [$pid])[0]['pg_terminate_backend']);
            try {
                $query->join();
                self::fail('query survived its backend');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('lost', $e->getMessage());
                self::assertStringContainsString('terminating connection due to administrator command', $e->getMessage());
            }
            self::assertFalse($db->isUsable());
            $this->expectException(ConnectionException::class);
            $db->query('SELECT 1');
        });
    }

    public function testIdleConnectionWhoseBackendWasTerminatedIsNotUsable(): void
    {
        $this->async(function (): void {
            $idle = $this->connect();
            $other = $this->connect();
            $admin = $this->connect();
            foreach ([$idle, $other] as $db) {
                $admin->query('SELECT pg_terminate_backend(?)', [$db->query('SELECT pg_backend_pid() AS pid')[0]['pid']]);
            }
            sleep(0.1);
            self::assertFalse($idle->isUsable(), 'noticed without a round trip');
            try {
                $other->query('SELECT 1'); // not checked first: the query itself finds out
                self::fail('a terminated connection answered');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('PostgreSQL connection to', $e->getMessage());
            }
            self::assertFalse($other->isUsable());
        });
    }

    public function testCloseFromAnotherCoroutineWakesTheQuery(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $query = go(static fn () => $db->query('SELECT pg_sleep(5)'));
            sleep(0.05);
            $start = \hrtime(true);
            $db->close();
            try {
                $query->join();
                self::fail('query survived close()');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('closed while a command was in flight', $e->getMessage());
            }
            self::assertLessThan(0.2, (\hrtime(true) - $start) / 1e9);
            self::assertFalse($db->isUsable());
        });
    }
}
