<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\ConnectionException;
use Petrel\Database\Database;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Coroutine\TimeoutException;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\sleep;
use function Petrel\timeout;

/**
 * A long-lived coroutine whose PostgreSQL connection the server ends (pg_terminate_backend,
 * idle_session_timeout) gets a new one for its next query, or, inside a transaction, an
 * error saying the transaction was lost.
 */
#[CoversClass(Database::class)]
final class DeadConnectionTest extends PgsqlTestCase
{
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

    /**
     * A deadline that cuts a query short closes the connection (the protocol is out of step),
     * and with it the transaction. The caller may catch the deadline and go on: the next
     * statement must not then run on another connection, outside the transaction (committed
     * by itself, while the first was rolled back), nor a commit() report success.
     */
    public function testAQueryCutShortByADeadlineInsideATransactionLeavesTheNextStatementsToSayItWasLost(): void
    {
        $table = $this->table('cut');
        $this->async(function () use ($table): void {
            $db = new Database(self::config());
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
            try {
                $db->transaction(static function () use ($db, $table): void {
                    $db->execute("INSERT INTO {$table} VALUES (1)");
                    try {
                        timeout(0.2, static fn () => $db->query('SELECT pg_sleep(1)'));
                        self::fail('the query must be cut short');
                    } catch (TimeoutException) {
                        // an optional step: the caller goes on
                    }
                    $db->execute("INSERT INTO {$table} VALUES (2)");
                });
                self::fail('the transaction was lost: the statement after the deadline must say so');
            } catch (ConnectionException $e) {
                self::assertTrue($e->transactionLost, $e->getMessage());
                self::assertStringContainsString('transaction was lost', $e->getMessage());
            }
            self::assertSame(0, $db->scalar("SELECT COUNT(*) FROM {$table}"), 'nothing committed, nothing run outside the transaction');

            $connection = $this->connect();
            $connection->beginTransaction();
            $connection->execute("INSERT INTO {$table} VALUES (3)");
            try {
                timeout(0.2, static fn () => $connection->query('SELECT pg_sleep(1)'));
                self::fail('the query must be cut short');
            } catch (TimeoutException) {
            }
            try {
                $connection->commit();
                self::fail('commit() of a lost transaction must throw');
            } catch (ConnectionException $e) {
                self::assertTrue($e->transactionLost, 'the first call after the deadline tells of the lost transaction');
            }
            try {
                $connection->query('SELECT 1');
                self::fail('the connection is closed');
            } catch (ConnectionException $e) {
                self::assertFalse($e->transactionLost, 'told once');
            }
            self::assertSame(0, $db->scalar("SELECT COUNT(*) FROM {$table}"));
            $db->close();
        }, 30.0);
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
}
