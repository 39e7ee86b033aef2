<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\ConnectionException;
use Petrel\Database\Database;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Pool\PoolConfig;
use Petrel\Tests\Support\DeadlineInTransaction;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;

/**
 * A long-lived coroutine (a consumer's run() closure, a WebSocket connection) whose
 * connection the server drops — KILL, wait_timeout — recovers: outside a transaction the
 * next query runs on a new connection without an error; inside one, the error says the
 * transaction was lost, and the query after it works again. An idle lease goes back to the
 * pool while the coroutine goes on.
 */
#[CoversClass(Database::class)]
final class DeadConnectionTest extends MysqlTestCase
{
    use DeadlineInTransaction;

    public function testAConnectionKilledByTheServerIsReplacedForTheNextQuery(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $first = $db->scalar('SELECT CONNECTION_ID()');
            $admin->execute("KILL {$first}");
            self::waitUntilGone($admin, (int) $first);

            $second = $db->scalar('SELECT CONNECTION_ID()'); // no exception
            self::assertNotSame($first, $second);
            self::assertSame(1, $db->pool()->stats()['size'], 'the dead connection was closed, not kept');
            $db->close();
        }, 30.0);
    }

    public function testAConnectionDroppedByWaitTimeoutIsReplacedForTheNextQuery(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $db->execute('SET SESSION wait_timeout = 1');
            $first = $db->scalar('SELECT CONNECTION_ID()');
            self::waitUntilGone($admin, (int) $first);

            self::assertSame([['n' => 1]], $db->query('SELECT 1 AS n'));
            self::assertNotSame($first, $db->scalar('SELECT CONNECTION_ID()'));
            $db->close();
        }, 30.0);
    }

    public function testAConnectionHeldWithConnectionIsReplacedWhenAskedForAgain(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $held = $db->connection();
            \assert($held instanceof MysqlConnection);
            $admin->execute("KILL {$held->connectionId()}");
            self::waitUntilGone($admin, $held->connectionId());

            $again = $db->connection();
            self::assertNotSame($held, $again);
            self::assertSame([['n' => 2]], $again->query('SELECT 2 AS n'));
            $db->close();
        }, 30.0);
    }

    public function testAConnectionKilledInsideATransactionSaysTheTransactionWasLost(): void
    {
        $table = $this->table('lost');
        $this->async(function () use ($table): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $admin->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
            $connection = $db->connection();
            \assert($connection instanceof MysqlConnection);
            $connection->beginTransaction();
            $db->execute("INSERT INTO {$table} VALUES (1)");
            $admin->execute("KILL {$connection->connectionId()}");
            self::waitUntilGone($admin, $connection->connectionId());

            try {
                $db->execute("INSERT INTO {$table} VALUES (2)");
                self::fail('a query in a transaction whose connection died must not run elsewhere');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('transaction was lost', $e->getMessage());
            }
            self::assertSame(0, $db->scalar("SELECT COUNT(*) FROM {$table}"), 'nothing committed, nothing run outside the transaction');
            self::assertFalse($db->connection()->inTransaction());
            $db->close();
        }, 30.0);
    }

    public function testAQueryInFlightWhenTheConnectionDiesInATransactionSaysItWasLost(): void
    {
        $this->async(function (): void {
            $connection = $this->connect();
            $admin = $this->connect();
            $connection->beginTransaction();
            $killer = go(static function () use ($admin, $connection): void {
                while (self::runningThreads($admin, 'SLEEP(30)') === []) {
                    sleep(0.05);
                }
                $admin->execute("KILL {$connection->connectionId()}");
            });
            try {
                $connection->query('SELECT SLEEP(30)');
                self::fail('the killed query must throw');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('transaction open on it was lost', $e->getMessage());
            }
            $killer->join();
        }, 30.0);
    }

    /**
     * A deadline that cuts a query short inside a transaction: see DeadlineInTransaction. No
     * KILL QUERY after the deadline (its coroutine would outlive the test): what is tested
     * is the client's side, which is the same with it.
     */
    public function testAQueryCutShortByADeadlineInsideATransactionLeavesTheNextStatementsToSayItWasLost(): void
    {
        $this->assertADeadlineInsideATransactionMakesTheNextStatementSayItWasLost('SELECT SLEEP(1)', ['kill_on_cancel' => '0']);
    }

    public function testTheErrorAfterWaitTimeoutNamesTheServer(): void
    {
        $this->async(function (): void {
            $connection = $this->connect();
            $admin = $this->connect();
            $connection->execute('SET SESSION wait_timeout = 1');
            self::waitUntilGone($admin, $connection->connectionId());
            try {
                $connection->query('SELECT 1');
                self::fail('the dropped connection must throw');
            } catch (ConnectionException $e) {
                self::assertStringNotContainsString('Write to  failed', $e->getMessage());
                self::assertMatchesRegularExpression('/^Lost connection to MySQL at [^ ]+:\d+: /', $e->getMessage());
            }
        }, 30.0);
    }

    public function testAnIdleLeaseGoesBackToThePoolWhileTheCoroutineGoesOn(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config(), new PoolConfig(max: 1, leaseIdleTimeout: 0.2));
            $first = $db->scalar('SELECT CONNECTION_ID()');
            $deadline = \microtime(true) + 20;
            while ($db->pool()->stats()['idle'] !== 1) {
                self::assertLessThan($deadline, \microtime(true), 'the idle lease was never returned');
                sleep(0.05);
            }
            // Another coroutine gets it (max 1: it would wait 5 s and fail if it were pinned).
            self::assertSame($first, go(static fn () => $db->scalar('SELECT CONNECTION_ID()'))->join());
            self::assertSame($first, $db->scalar('SELECT CONNECTION_ID()'), 'this coroutine leases again');
            $db->close();
        }, 30.0);
    }

    public function testAnOpenTransactionKeepsItsLeaseThroughAPause(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config(), new PoolConfig(max: 2, leaseIdleTimeout: 0.1));
            $db->execute('START TRANSACTION');
            $first = $db->scalar('SELECT CONNECTION_ID()');
            sleep(0.5); // several sweeps: none may take a connection inside a transaction
            self::assertSame($first, $db->scalar('SELECT CONNECTION_ID()'));
            self::assertTrue($db->connection()->inTransaction());
            $db->execute('ROLLBACK');
            $db->close();
        }, 30.0);
    }

    /** Waits (bounded) until the server has no thread $id any more. */
    private static function waitUntilGone(MysqlConnection $admin, int $id): void
    {
        $deadline = \microtime(true) + 20;
        while ($admin->query('SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?', [$id]) !== []) {
            self::assertLessThan($deadline, \microtime(true), "server thread {$id} is still there");
            sleep(0.05);
        }
    }

    public function testADeadlineAroundATransactionThatEndsItWhileItsClosureWaitsLeavesTheNextQueryWorking(): void
    {
        $this->assertADeadlineAroundATransactionLeavesTheNextQueryWorking(null);
    }

    public function testADeadlineAroundATransactionThatCutsAQueryShortLeavesTheNextQueryWorking(): void
    {
        // No KILL QUERY after the deadline, as above: its coroutine would outlive the test.
        $this->assertADeadlineAroundATransactionLeavesTheNextQueryWorking('SELECT SLEEP(5)', ['kill_on_cancel' => '0']);
    }
}
