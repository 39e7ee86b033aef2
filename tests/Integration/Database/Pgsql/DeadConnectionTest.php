<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\ConnectionException;
use Petrel\Database\Database;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Tests\Support\DeadlineInTransaction;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\sleep;

/**
 * A long-lived coroutine whose PostgreSQL connection the server ends (pg_terminate_backend,
 * idle_session_timeout) gets a new one for its next query, or, inside a transaction, an
 * error saying the transaction was lost.
 */
#[CoversClass(Database::class)]
final class DeadConnectionTest extends PgsqlTestCase
{
    use DeadlineInTransaction;

    public function testAConnectionTerminatedByTheServerIsReplacedForTheNextQuery(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $first = $db->scalar('SELECT pg_backend_pid()');
            $admin->query('SELECT pg_terminate_backend(?)', [$first]);
            self::waitUntilGone($admin, (int) $first);

            $second = $db->scalar('SELECT pg_backend_pid()');
            self::assertNotSame($first, $second);
            $db->close();
        }, 30.0);
    }

    public function testAConnectionDroppedByAnIdleTimeoutIsReplacedForTheNextQuery(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            if ((int) $admin->query('SHOW server_version_num')[0]['server_version_num'] < 140000) {
                self::markTestSkipped('idle_session_timeout needs PostgreSQL 14');
            }
            $db->execute("SET idle_session_timeout = '500ms'");
            $first = $db->scalar('SELECT pg_backend_pid()');
            self::waitUntilGone($admin, (int) $first);

            self::assertSame([['n' => 1]], $db->query('SELECT 1 AS n'));
            $db->close();
        }, 30.0);
    }

    public function testAConnectionTerminatedInsideATransactionSaysTheTransactionWasLost(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $db->execute('BEGIN');
            $pid = (int) $db->scalar('SELECT pg_backend_pid()');
            $admin->query('SELECT pg_terminate_backend(?)', [$pid]);
            self::waitUntilGone($admin, $pid);

            try {
                $db->query('SELECT 1');
                self::fail('a query in a transaction whose connection died must not run elsewhere');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('transaction was lost', $e->getMessage());
            }
            self::assertSame([['n' => 2]], $db->query('SELECT 2 AS n'));
            self::assertFalse($db->connection()->inTransaction());
            $db->close();
        }, 30.0);
    }

    /** A deadline that cuts a query short inside a transaction: see DeadlineInTransaction. */
    public function testAQueryCutShortByADeadlineInsideATransactionLeavesTheNextStatementsToSayItWasLost(): void
    {
        $this->assertADeadlineInsideATransactionMakesTheNextStatementSayItWasLost('SELECT pg_sleep(1)');
    }

    /**
     * Waits (bounded) until backend $pid has gone from pg_stat_activity and, when the server
     * runs on this machine (as in CI), until its process has exited: the backend leaves
     * pg_stat_activity a moment before its socket closes.
     */
    private static function waitUntilGone(PgsqlConnection $admin, int $pid): void
    {
        $deadline = \microtime(true) + 20;
        while ($admin->query('SELECT 1 FROM pg_stat_activity WHERE pid = ?', [$pid]) !== []
            || \str_starts_with((string) @\file_get_contents("/proc/{$pid}/comm"), 'postgres')) {
            self::assertLessThan($deadline, \microtime(true), "backend {$pid} is still there");
            sleep(0.05);
        }
    }

    public function testADeadlineAroundATransactionThatEndsItWhileItsClosureWaitsLeavesTheNextQueryWorking(): void
    {
        $this->assertADeadlineAroundATransactionLeavesTheNextQueryWorking(null);
    }

    public function testADeadlineAroundATransactionThatCutsAQueryShortLeavesTheNextQueryWorking(): void
    {
        $this->assertADeadlineAroundATransactionLeavesTheNextQueryWorking('SELECT pg_sleep(5)');
    }
}
