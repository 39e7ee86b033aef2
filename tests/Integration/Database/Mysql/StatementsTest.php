<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\Mysql\Internal\ServerError;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\QueryException;
use Petrel\Database\Result;
use PHPUnit\Framework\Attributes\CoversClass;

/** execute() results, server errors, and responses with several result sets. */
#[CoversClass(MysqlConnection::class)]
#[CoversClass(ServerError::class)]
final class StatementsTest extends MysqlTestCase
{
    public function testAffectedRowsAndLastInsertId(): void
    {
        $table = $this->table('exec');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            self::assertEquals(new Result(0), $db->execute("CREATE TABLE {$table} (id BIGINT UNSIGNED PRIMARY KEY AUTO_INCREMENT, v INT)"));
            self::assertEquals(new Result(1, 1), $db->execute("INSERT INTO {$table} (v) VALUES (10)"));
            self::assertEquals(new Result(3, 2), $db->execute("INSERT INTO {$table} (v) VALUES (?), (?), (?)", [20, 30, 40]));
            self::assertEquals(new Result(2), $db->execute("UPDATE {$table} SET v = v + 1 WHERE v >= ?", [30]));
            self::assertEquals(new Result(0), $db->execute("UPDATE {$table} SET v = 99 WHERE id = 12345"));
            self::assertEquals(new Result(1, 1000), $db->execute("INSERT INTO {$table} (id, v) VALUES (1000, 0)"));
            self::assertEquals(new Result(4), $db->execute("DELETE FROM {$table} WHERE id < 1000"));
            // Above PHP_INT_MAX the id comes back as a decimal string.
            $db->execute("ALTER TABLE {$table} AUTO_INCREMENT = 18446744073709551610");
            self::assertEquals(new Result(1, '18446744073709551610'), $db->execute("INSERT INTO {$table} (v) VALUES (1)"));
            // A SELECT through execute(): the number of rows.
            self::assertEquals(new Result(2), $db->execute("SELECT * FROM {$table}"));
            self::assertSame([], $db->query("UPDATE {$table} SET v = 0"), 'query() of a statement without rows');
        });
    }

    public function testServerErrorsAreQueryExceptionsAndTheConnectionStaysUsable(): void
    {
        $table = $this->table('dup');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
            $db->execute("INSERT INTO {$table} VALUES (1)");
            foreach ([[], [1]] as $params) {
                $sql = $params === [] ? "INSERT INTO {$table} VALUES (1)" : "INSERT INTO {$table} VALUES (?)";
                try {
                    $db->execute($sql, $params);
                    self::fail('a duplicate key must fail');
                } catch (QueryException $e) {
                    self::assertSame('23000', $e->getSqlState());
                    self::assertSame(1062, $e->getDriverCode());
                    self::assertSame(1062, $e->getCode());
                    self::assertSame($sql, $e->getSql());
                    self::assertSame("MySQL: Duplicate entry '1' for key 'PRIMARY' (1062, SQLSTATE 23000)", $e->getMessage());
                    self::assertInstanceOf(MysqlException::class, $e->getPrevious());
                }
                self::assertTrue($db->isUsable());
            }
            try {
                $db->query('SELEKT 1');
                self::fail('a syntax error must fail');
            } catch (QueryException $e) {
                self::assertSame('42000', $e->getSqlState());
                self::assertSame(1064, $e->getDriverCode());
            }
            try {
                $db->query('SELECT * FROM petrel_no_such_table WHERE id = ?', [1]); // fails at prepare
                self::fail('an unknown table must fail');
            } catch (QueryException $e) {
                self::assertSame('42S02', $e->getSqlState());
                self::assertSame(1146, $e->getDriverCode());
            }
            self::assertSame([['n' => 1]], $db->query("SELECT COUNT(*) AS n FROM {$table}"));
            self::assertSame([['n' => 1]], $db->query("SELECT COUNT(*) AS n FROM {$table} WHERE id = ?", [1]));
        });
    }

    public function testAProcedureReturningTwoResultSets(): void
    {
        $procedure = $this->table('proc');
        $this->async(function () use ($procedure): void {
            $db = $this->connect();
            $db->execute("CREATE PROCEDURE {$procedure}(IN n INT) BEGIN SELECT n AS a, 'x' AS b; SELECT seq AS c FROM seq_1_to_3; END");
            try {
                $sets = [[['a' => 7, 'b' => 'x']], [['c' => 1], ['c' => 2], ['c' => 3]]];
                self::assertSame($sets, $db->queryMulti("CALL {$procedure}(7)"));
                self::assertSame($sets, $db->queryMulti("CALL {$procedure}(?)", [7]));
                self::assertSame($sets[0], $db->query("CALL {$procedure}(7)"), 'query(): the first set; the rest is read past');
                self::assertSame($sets[0], $db->query("CALL {$procedure}(?)", [7]));
                self::assertSame([['a' => 7, 'b' => 'x']], \iterator_to_array($db->stream("CALL {$procedure}(7)")));
                self::assertTrue($db->isUsable());
                self::assertSame([['ok' => 1]], $db->query('SELECT 1 AS ok'));
            } finally {
                $db->execute("DROP PROCEDURE {$procedure}");
            }
        });
    }

    public function testMultipleStatementsInOneStringAreRefused(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            try {
                $db->query('SELECT 1; SELECT 2');
                self::fail('multi-statements are not enabled');
            } catch (QueryException $e) {
                self::assertSame(1064, $e->getDriverCode());
            }
            self::assertTrue($db->isUsable());
        });
    }
}
