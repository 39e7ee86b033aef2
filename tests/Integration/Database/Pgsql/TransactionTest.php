<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\Connection;
use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(PgsqlConnection::class)]
final class TransactionTest extends PgsqlTestCase
{
    public function testCommitAndRollBack(): void
    {
        $table = $this->table('tx');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $other = $this->connect();
            $db->execute("CREATE TABLE {$table} (v int)");
            $db->beginTransaction();
            self::assertTrue($db->inTransaction());
            $db->execute("INSERT INTO {$table} VALUES (1)");
            self::assertSame([], $other->query("SELECT * FROM {$table}"), 'not visible before COMMIT');
            $db->commit();
            self::assertFalse($db->inTransaction());
            self::assertSame([['v' => 1]], $other->query("SELECT * FROM {$table}"));

            $db->beginTransaction();
            $db->execute("INSERT INTO {$table} VALUES (2)");
            $db->rollBack();
            self::assertFalse($db->inTransaction());
            self::assertSame([['v' => 1]], $db->query("SELECT * FROM {$table}"));
        });
    }

    public function testTransactionClosure(): void
    {
        $table = $this->table('txc');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (v int)");
            $result = $db->transaction(static function (Connection $c) use ($table): string {
                $c->execute("INSERT INTO {$table} VALUES (1)");

                return 'done';
            });
            self::assertSame('done', $result);
            try {
                $db->transaction(static function (Connection $c) use ($table): void {
                    $c->execute("INSERT INTO {$table} VALUES (2)");
                    throw new \RuntimeException('changed my mind');
                });
                self::fail('the exception was swallowed');
            } catch (\RuntimeException $e) {
                self::assertSame('changed my mind', $e->getMessage());
            }
            self::assertFalse($db->inTransaction());
            self::assertSame([['v' => 1]], $db->query("SELECT * FROM {$table}"));
        });
    }

    public function testFailedStatementAbortsTheTransaction(): void
    {
        $table = $this->table('abort');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id int PRIMARY KEY)");
            $db->beginTransaction();
            $db->execute("INSERT INTO {$table} VALUES (1)");
            try {
                $db->execute("INSERT INTO {$table} VALUES (1)");
                self::fail('duplicate accepted');
            } catch (QueryException $e) {
                self::assertSame('23505', $e->getSqlState());
            }
            self::assertTrue($db->inTransaction());
            try {
                $db->query('SELECT 1');
                self::fail('statement ran in an aborted transaction');
            } catch (QueryException $e) {
                self::assertSame('25P02', $e->getSqlState()); // current transaction is aborted
            }
            $db->ping(); // still answers in an aborted transaction
            try {
                $db->commit();
                self::fail('committed an aborted transaction');
            } catch (QueryException $e) {
                self::assertSame('25P02', $e->getSqlState());
                self::assertStringContainsString('rolled back', $e->getMessage());
            }
            self::assertFalse($db->inTransaction());
            self::assertTrue($db->isUsable());
            self::assertSame([], $db->query("SELECT * FROM {$table}"));
        });
    }

    public function testTransactionRollsBackWhenAStatementFailedEvenIfTheClosureCaughtIt(): void
    {
        $table = $this->table('abortc');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id int PRIMARY KEY)");
            try {
                $db->transaction(static function (Connection $c) use ($table): void {
                    $c->execute("INSERT INTO {$table} VALUES (1)");
                    try {
                        $c->execute("INSERT INTO {$table} VALUES (1)");
                    } catch (QueryException) {
                        // swallowed: the transaction is aborted all the same
                    }
                });
                self::fail('commit of an aborted transaction succeeded');
            } catch (QueryException $e) {
                self::assertSame('25P02', $e->getSqlState());
            }
            self::assertFalse($db->inTransaction());
            self::assertSame([], $db->query("SELECT * FROM {$table}"));

            try {
                $db->transaction(static fn (Connection $c) => $c->execute("INSERT INTO {$table} VALUES (1), (1)"));
                self::fail('duplicate accepted');
            } catch (QueryException $e) {
                self::assertSame('23505', $e->getSqlState());
            }
            self::assertFalse($db->inTransaction());
        });
    }

    public function testMisuse(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            foreach ([static fn () => $db->commit(), static fn () => $db->rollBack()] as $call) {
                try {
                    $call();
                    self::fail('no transaction, yet no error');
                } catch (DatabaseError $e) {
                    self::assertStringContainsString('No transaction is open', $e->getMessage());
                }
            }
            $db->beginTransaction();
            try {
                $db->beginTransaction();
                self::fail('nested BEGIN accepted');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('SAVEPOINT', $e->getMessage());
            }
            $db->rollBack();
        });
    }
}
