<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\Connection;
use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

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
