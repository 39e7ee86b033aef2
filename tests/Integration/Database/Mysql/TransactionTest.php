<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\Connection;
use Petrel\Database\Database;
use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\QueryException;
use Petrel\Pool\PoolConfig;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;

#[CoversClass(MysqlConnection::class)]
final class TransactionTest extends MysqlTestCase
{
    public function testCommitAndRollBack(): void
    {
        $table = $this->table('tx');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $other = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY) ENGINE=InnoDB");

            $db->beginTransaction();
            self::assertTrue($db->inTransaction());
            $db->execute("INSERT INTO {$table} VALUES (?)", [1]);
            self::assertSame([], $other->query("SELECT id FROM {$table}"), 'not visible before commit');
            $db->commit();
            self::assertFalse($db->inTransaction());
            self::assertSame([['id' => 1]], $other->query("SELECT id FROM {$table}"));

            $db->beginTransaction();
            $db->execute("INSERT INTO {$table} VALUES (2)");
            $db->rollBack();
            self::assertFalse($db->inTransaction());
            self::assertSame([['id' => 1]], $db->query("SELECT id FROM {$table}"));
        });
    }

    public function testInTransactionFollowsTheServerEvenForSqlText(): void
    {
        $table = $this->table('flags');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute('START TRANSACTION');
            self::assertTrue($db->inTransaction());
            $db->query('COMMIT');
            self::assertFalse($db->inTransaction());
            $db->beginTransaction();
            $db->execute("CREATE TABLE {$table} (id INT)"); // DDL commits implicitly
            self::assertFalse($db->inTransaction());
            $db->commit(); // harmless without a transaction
            self::assertFalse($db->inTransaction());
        });
    }

    /**
     * With autocommit off every statement opens a transaction: a pooled connection left so
     * would take the next coroutine's writes into a transaction nobody commits, rolled back
     * unseen when the pool closes it. The pool closes it when it comes back instead.
     */
    public function testAConnectionLeftWithoutAutocommitIsNotHandedToTheNextCoroutine(): void
    {
        $table = $this->table('ac');
        $this->async(function () use ($table): void {
            $db = new Database(self::config(), new PoolConfig(max: 1));
            go(static fn () => $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY) ENGINE=InnoDB"))->join();
            $first = go(static function () use ($db): int {
                $connection = $db->connection();
                \assert($connection instanceof MysqlConnection);
                self::assertTrue($connection->autocommits());
                $db->execute('SET autocommit = 0');
                self::assertFalse($connection->autocommits());
                self::assertFalse($connection->inTransaction(), 'no statement yet: no transaction');

                return $connection->connectionId();
            })->join();
            $second = go(static function () use ($db, $table): int {
                $connection = $db->connection();
                \assert($connection instanceof MysqlConnection);
                self::assertTrue($connection->autocommits());
                $db->execute("INSERT INTO {$table} VALUES (1)");

                return $connection->connectionId();
            })->join();
            self::assertNotSame($first, $second, 'a new connection');
            self::assertSame(1, go(static fn () => $db->scalar("SELECT COUNT(*) FROM {$table}"))->join(), 'the write committed');
            $db->close();
        });
    }

    public function testBeginningTwiceIsAnError(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $db->beginTransaction();
            try {
                $db->beginTransaction();
                self::fail('nested begin must fail');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('already open', $e->getMessage());
            }
            self::assertTrue($db->inTransaction());
            $db->rollBack();
        });
    }

    public function testTransactionClosureCommitsOrRollsBackAndRethrows(): void
    {
        $table = $this->table('closure');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY) ENGINE=InnoDB");
            $result = $db->transaction(static function (Connection $tx) use ($table): string {
                self::assertTrue($tx->inTransaction());
                $tx->execute("INSERT INTO {$table} VALUES (1)");

                return 'done';
            });
            self::assertSame('done', $result);
            self::assertFalse($db->inTransaction());

            try {
                $db->transaction(static function (Connection $tx) use ($table): void {
                    $tx->execute("INSERT INTO {$table} VALUES (2)");
                    throw new \DomainException('changed my mind');
                });
                self::fail('the exception must come through');
            } catch (\DomainException $e) {
                self::assertSame('changed my mind', $e->getMessage());
            }
            self::assertFalse($db->inTransaction());

            try {
                $db->transaction(static function (Connection $tx) use ($table): void {
                    $tx->execute("INSERT INTO {$table} VALUES (3)");
                    $tx->execute("INSERT INTO {$table} VALUES (1)"); // duplicate
                });
                self::fail('the duplicate key must come through');
            } catch (QueryException $e) {
                self::assertSame(1062, $e->getDriverCode());
            }
            self::assertFalse($db->inTransaction());
            self::assertSame([['id' => 1]], $db->query("SELECT id FROM {$table} ORDER BY id"));
            self::assertTrue($db->isUsable());
        });
    }
}
