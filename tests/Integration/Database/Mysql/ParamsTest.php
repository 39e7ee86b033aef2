<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Internal\StatementCache;
use Petrel\Database\Mysql\Internal\Placeholders;
use Petrel\Database\Mysql\Internal\StatementPreparer;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\Mysql\MysqlStatement;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(MysqlConnection::class)]
#[CoversClass(MysqlStatement::class)]
#[CoversClass(Placeholders::class)]
#[CoversClass(StatementPreparer::class)]
#[CoversClass(StatementCache::class)]
final class ParamsTest extends MysqlTestCase
{
    public function testPositionalAndNamedParameters(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            self::assertSame([['a' => 1, 'b' => 'two', 'c' => null]], $db->query('SELECT ? AS a, ? AS b, ? AS c', [1, 'two', null]));
            self::assertSame(
                [['a' => 1, 'b' => 'x', 'again' => 1]],
                $db->query('SELECT :a AS a, :b AS b, :a AS again', ['a' => 1, ':b' => 'x']),
            );
            $bytes = "\x00\xFF\x00'\"\\%_";
            self::assertSame([['v' => $bytes, 'n' => \strlen($bytes)]], $db->query('SELECT :v AS v, LENGTH(:v) AS n', ['v' => $bytes]));
            self::assertSame([['t' => 1, 'f' => 0, 'x' => 2.5]], $db->query('SELECT ? AS t, ? AS f, ? AS x', [true, false, 2.5]));
            $when = new \DateTimeImmutable('2020-01-02 03:04:05');
            self::assertSame([['d' => '2020-01-02 03:04:05']], $db->query('SELECT CAST(? AS DATETIME) AS d', [$when]));
        });
    }

    public function testPlaceholderLookalikesInLiteralsCommentsAndIdentifiersStayText(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $sql = "SELECT ':no' AS `a:b`, \":nor\" AS c, 'it''s :x' AS d, :yes AS e -- :comment\n"
                . ", '?' AS f /* :block ? */, @v := 1 AS g # :hash";
            self::assertSame(
                [['a:b' => ':no', 'c' => ':nor', 'd' => "it's :x", 'e' => 5, 'f' => '?', 'g' => 1]],
                $db->query($sql, ['yes' => 5]),
            );
        });
    }

    public function testAnInjectionAttemptStaysData(): void
    {
        $table = $this->table('users');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(100))");
            $evil = "x'); DROP TABLE {$table}; -- ";
            $db->execute("INSERT INTO {$table} (name) VALUES (?)", [$evil]);
            $db->execute("INSERT INTO {$table} (name) VALUES (:n)", ['n' => "' OR '1'='1"]);
            self::assertSame([], $db->query("SELECT * FROM {$table} WHERE name = ?", ["' OR '1'='1' -- "]));
            self::assertSame([['name' => $evil], ['name' => "' OR '1'='1"]], $db->query("SELECT name FROM {$table} ORDER BY id"));
        });
    }

    public function testMismatchedParametersAreDatabaseErrors(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $cases = [
                ['SELECT ? AS a, :b AS b', ['b' => 1], 'mixes ? and :name placeholders'],
                ['SELECT :a AS a', [1], 'uses named placeholders (:a): pass the parameters keyed by name'],
                ['SELECT ? AS a', ['a' => 1], 'Named parameters (:a) given, but the statement has ? placeholders'],
                ['SELECT :a AS a, :b AS b', ['a' => 1], 'Missing a value for the placeholder :b'],
                ['SELECT :a AS a', ['a' => 1, 'zz' => 2], 'Parameter :zz not used by the statement (its placeholders: :a)'],
                ['SELECT ? AS a, ? AS b', [1], 'The statement has 2 placeholders but 1 parameter was given'],
                ['SELECT ? AS a', [1, 2], 'The statement has 1 placeholder but 2 parameters were given'],
                ['SELECT :a AS a', ['a' => 1, 0 => 2], 'mix positional (integer) and named (string) keys'],
                ['SELECT ? AS a', [new \stdClass()], 'Parameter #1 is a stdClass'],
            ];
            foreach ($cases as [$sql, $params, $message]) {
                try {
                    $db->query($sql, $params);
                    self::fail("no error for {$sql}");
                } catch (DatabaseError $e) {
                    self::assertStringContainsString($message, $e->getMessage(), $sql);
                }
                self::assertTrue($db->isUsable(), 'a misuse must not break the connection');
            }
            self::assertSame([['a' => 1]], $db->query('SELECT ? AS a', [1]));
        });
    }

    public function testPreparedStatementsAreCachedAndEvictedOnesClosed(): void
    {
        $this->async(function (): void {
            $db = $this->connect(self::config(['statement_cache' => '2']));
            $count = static fn (): int => (int) $db->query("SHOW SESSION STATUS LIKE 'Com_stmt_prepare'")[0]['Value'];
            $closes = static fn (): int => (int) $db->query("SHOW SESSION STATUS LIKE 'Com_stmt_close'")[0]['Value'];
            $before = $count();
            for ($i = 0; $i < 5; $i++) {
                self::assertSame([['n' => $i]], $db->query('SELECT ? AS n', [$i]));
            }
            self::assertSame($before + 1, $count(), 'one prepare for five executions');
            $db->query('SELECT ? AS a', [1]);
            $db->query('SELECT ? AS b', [1]); // evicts 'SELECT ? AS n'
            $closesBefore = $closes();
            $db->query('SELECT ? AS c', [1]); // evicts 'SELECT ? AS a'; the close goes out with it
            self::assertSame($closesBefore + 1, $closes());
            self::assertSame($before + 4, $count());
        });
    }

    public function testWithoutACacheEveryStatementIsClosedAfterUse(): void
    {
        $this->async(function (): void {
            $db = $this->connect(self::config(['statement_cache' => '0']));
            for ($i = 0; $i < 3; $i++) {
                self::assertSame([['n' => $i]], $db->query('SELECT ? AS n', [$i]));
            }
            $status = $db->query("SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_close')");
            $values = \array_column($status, 'Value', 'Variable_name');
            self::assertSame((int) $values['Com_stmt_prepare'], (int) $values['Com_stmt_close'], 'every prepared statement closed');
        });
    }

    public function testExplicitPreparedStatements(): void
    {
        $table = $this->table('stmt');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))");
            $insert = $db->prepare("INSERT INTO {$table} (v) VALUES (:v)");
            self::assertSame(1, $insert->execute(['v' => 'a'])->lastInsertId);
            self::assertSame(2, $insert->execute(['v' => 'b'])->lastInsertId);
            $select = $db->prepare("SELECT v FROM {$table} WHERE id > ? ORDER BY id");
            self::assertSame([['v' => 'a'], ['v' => 'b']], $select->query([0]));
            self::assertSame([['v' => 'b']], $select->query([1]));
            $select->close();
            $this->expectException(DatabaseError::class);
            $this->expectExceptionMessage('This prepared statement was closed');
            $select->query([0]);
        });
    }
}
