<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Petrel\Coroutine\TimeoutException;
use Petrel\Database\Connection;
use Petrel\Database\ConnectionException;
use Petrel\Database\Database;

use function Petrel\sleep;
use function Petrel\timeout;

/**
 * Tests both SQL servers' DeadConnectionTest run: a deadline that cuts a query short
 * closes the connection (the protocol is out of step), and with it the transaction. The
 * caller may catch the deadline and go on: the next statement must not then run on another
 * connection, outside the transaction (committed by itself, while the first was rolled
 * back), nor a commit() report success. A deadline around transaction() that expires
 * inside it is reported by the TimeoutException escaping transaction(): the next unit of
 * work runs on a fresh connection.
 *
 * @phpstan-require-extends DatabaseServerTestCase
 */
trait DeadlineInTransaction
{
    /**
     * @param string $slowSql a query that takes a second
     * @param array<string, string> $options connection options for the test's connections
     */
    private function assertADeadlineInsideATransactionMakesTheNextStatementSayItWasLost(string $slowSql, array $options = []): void
    {
        $table = $this->table('cut');
        $this->async(function () use ($table, $options, $slowSql): void {
            $config = self::config($options);
            $db = new Database($config);
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
            try {
                $db->transaction(static function () use ($db, $table, $slowSql): void {
                    $db->execute("INSERT INTO {$table} VALUES (1)");
                    try {
                        timeout(0.2, static fn () => $db->query($slowSql));
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

            $connection = $this->connect($config);
            $connection->beginTransaction();
            $connection->execute("INSERT INTO {$table} VALUES (3)");
            try {
                timeout(0.2, static fn () => $connection->query($slowSql));
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
     * `timeout(…, fn () => $db->transaction(…))` (the usual way to bound a unit of work)
     * that expires inside the transaction, while its closure waits ($slowSql null) or in
     * the middle of $slowSql: the caller learns from the TimeoutException that nothing was
     * committed, and its next query (a consumer's next message) must not fail claiming a
     * transaction was lost (the rollback was cut by the same deadline).
     *
     * @param array<string, string> $options connection options for the test's connections
     */
    private function assertADeadlineAroundATransactionLeavesTheNextQueryWorking(?string $slowSql, array $options = []): void
    {
        $table = $this->table('deadline');
        $this->async(function () use ($table, $slowSql, $options): void {
            $db = new Database(self::config($options));
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
            try {
                timeout(0.3, static fn () => $db->transaction(static function (Connection $c) use ($table, $slowSql): void {
                    $c->execute("INSERT INTO {$table} VALUES (1)");
                    $slowSql === null ? sleep(5) : $c->query($slowSql);
                }));
                self::fail('the deadline must end the transaction');
            } catch (TimeoutException) {
                // the caller's way of learning the transaction did not commit
            }

            self::assertSame(0, $db->scalar("SELECT COUNT(*) FROM {$table}"), 'the next query works, and nothing was committed');
            self::assertSame(1, $db->pool()->stats()['size'], 'the broken connection was replaced, not kept');
            $db->close();
        }, 30.0);
    }
}
