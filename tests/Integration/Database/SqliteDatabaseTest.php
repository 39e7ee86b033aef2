<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database;

use Petrel\Database\Database;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\QueryException;
use Petrel\Database\Sqlite\SqliteConnection;
use Petrel\Pool\PoolConfig;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;

final class SqliteDatabaseTest extends AsyncTestCase
{
    private string $file;

    protected function setUp(): void
    {
        parent::setUp();
        $this->file = \sys_get_temp_dir() . '/petrel-sqlite-' . \getmypid() . '-' . \bin2hex(\random_bytes(4)) . '.db';
    }

    protected function tearDown(): void
    {
        foreach (['', '-wal', '-shm'] as $suffix) {
            @\unlink($this->file . $suffix);
        }
    }

    public function testTypesParamsAndResults(): void
    {
        $this->async(function (): void {
            $db = Database::fromUrl("sqlite://{$this->file}");
            $db->execute('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB, flag INTEGER, note TEXT)');
            $result = $db->execute('INSERT INTO t (name, score, data, flag, note) VALUES (?, ?, ?, ?, ?)', ["O'Brien 🚀", 1.5, "a\0b", true, null]);
            self::assertSame(1, $result->affectedRows);
            self::assertSame(1, $result->lastInsertId);
            $db->execute('INSERT INTO t (name, score) VALUES (:name, :score)', ['name' => 'Robert\'); DROP TABLE t;--', 'score' => 2]);
            $rows = $db->query('SELECT * FROM t ORDER BY id');
            self::assertSame(['id' => 1, 'name' => "O'Brien 🚀", 'score' => 1.5, 'data' => "a\0b", 'flag' => 1, 'note' => null], $rows[0]);
            self::assertSame('Robert\'); DROP TABLE t;--', $rows[1]['name'], 'injection stays data');
            self::assertSame(2, $db->scalar('SELECT count(*) FROM t'));
            self::assertNull($db->first('SELECT * FROM t WHERE id = ?', [99]));
            self::assertSame(2, $db->execute('UPDATE t SET flag = ?', [0])->affectedRows);
            $db->close();
        });
    }

    public function testErrorsCarrySqlStateAndCode(): void
    {
        $this->async(function (): void {
            $db = Database::fromUrl("sqlite://{$this->file}");
            $db->execute('CREATE TABLE u (email TEXT UNIQUE)');
            $db->execute('INSERT INTO u VALUES (?)', ['a@example.com']);
            try {
                $db->execute('INSERT INTO u VALUES (?)', ['a@example.com']);
                self::fail('expected a unique violation');
            } catch (QueryException $e) {
                self::assertSame('23000', $e->getSqlState());
                self::assertSame(19, $e->getDriverCode());
                self::assertStringContainsString('UNIQUE constraint failed', $e->getMessage());
                self::assertSame('INSERT INTO u VALUES (?)', $e->getSql());
            }
            try {
                $db->query('SELEKT 1');
                self::fail('expected a syntax error');
            } catch (QueryException $e) {
                self::assertStringContainsString('syntax error', $e->getMessage());
            }
            $this->expectException(DatabaseError::class);
            $db->query('SELECT ?', [new \stdClass()]);
        });
    }

    public function testTransactions(): void
    {
        $this->async(function (): void {
            $db = Database::fromUrl("sqlite://{$this->file}");
            $db->execute('CREATE TABLE a (n INTEGER)');
            $db->transaction(static fn ($c) => $c->execute('INSERT INTO a VALUES (1)'));
            try {
                $db->transaction(static function ($c): void {
                    $c->execute('INSERT INTO a VALUES (2)');
                    throw new \RuntimeException('abort');
                });
            } catch (\RuntimeException) {
            }
            self::assertSame([['n' => 1]], $db->query('SELECT n FROM a'));
        });
    }

    public function testStreamingDoesNotLoadEverything(): void
    {
        $this->async(function (): void {
            $connection = SqliteConnection::open($this->file);
            $before = \memory_get_usage();
            $count = 0;
            foreach ($connection->stream('WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 200000) SELECT n, printf("%0100d", n) AS pad FROM s') as $row) {
                $count++;
            }
            self::assertSame(200000, $count);
            self::assertLessThan(4 * 1024 * 1024, \memory_get_usage() - $before);
            foreach ($connection->stream('SELECT 1 AS x UNION ALL SELECT 2') as $row) {
                break; // abandoned early
            }
            self::assertSame([['x' => 3]], $connection->query('SELECT 3 AS x'), 'usable after an abandoned stream');
        });
    }

    public function testEachCoroutineLeasesItsOwnConnection(): void
    {
        $this->async(function (): void {
            $db = new Database(DatabaseConfig::fromUrl("sqlite://{$this->file}"), new PoolConfig(max: 4));
            $db->execute('CREATE TABLE c (n INTEGER)');
            $connections = [];
            $tasks = [];
            for ($i = 0; $i < 3; $i++) {
                $tasks[] = go(static function () use ($db, &$connections): void {
                    $connections[] = \spl_object_id($db->connection());
                    $db->execute('INSERT INTO c VALUES (1)');
                    \Petrel\sleep(0.005);
                });
            }
            foreach ($tasks as $task) {
                $task->join();
            }
            self::assertCount(3, \array_unique($connections));
            self::assertSame(3, $db->scalar('SELECT count(*) FROM c'));
        });
    }

    public function testATransactionLeftOpenIsNotReturnedToThePool(): void
    {
        $this->async(function (): void {
            // max 2: this test's coroutine holds its own lease until it ends
            $db = new Database(DatabaseConfig::fromUrl("sqlite://{$this->file}"), new PoolConfig(max: 2));
            $db->execute('CREATE TABLE o (n INTEGER)');
            go(static function () use ($db): void {
                $db->connection()->beginTransaction();
                $db->execute('INSERT INTO o VALUES (1)');
                // forgot to commit
            })->join();
            self::assertSame(0, $db->scalar('SELECT count(*) FROM o'), 'the forgotten transaction was discarded with its connection');
            self::assertSame(1, $db->pool()->stats()['size'], 'only this coroutine\'s connection is left');
        });
    }

    public function testCachedStatementsHoldNoReadLockAfterAQuery(): void
    {
        $this->async(function (): void {
            $db = Database::fromUrl("sqlite://{$this->file}");
            $db->execute('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
            $db->execute('INSERT INTO t (name) VALUES (?), (?)', ['a', 'b']);
            self::assertSame(['id' => 1, 'name' => 'a'], $db->first('SELECT * FROM t WHERE id = ?', [1]));
            self::assertSame([], $db->query('SELECT * FROM t WHERE id = ?', [99]));
            // An unfinished SELECT would keep a read snapshot and make the checkpoint busy.
            $other = SqliteConnection::open($this->file);
            $other->execute('INSERT INTO t (name) VALUES (?)', ['c']);
            $checkpoint = $other->query('PRAGMA wal_checkpoint(TRUNCATE)');
            self::assertSame(0, $checkpoint[0]['busy']);
            self::assertSame(3, $db->scalar('SELECT count(*) FROM t'), 'the next query sees the new row');
            $other->close();
            $db->close();
        });
    }

    public function testParametersOfEveryKindBindOnACachedStatement(): void
    {
        $this->async(function (): void {
            $db = Database::fromUrl("sqlite://{$this->file}");
            $sql = 'SELECT ? AS i, ? AS s, ? AS f, ? AS b, ? AS n, ? AS d';
            $date = new \DateTimeImmutable('2024-05-06 07:08:09');
            for ($i = 0; $i < 2; $i++) { // the second run reuses the prepared statement
                self::assertSame(
                    ['i' => 7, 's' => 'x', 'f' => '1.5', 'b' => 1, 'n' => null, 'd' => '2024-05-06 07:08:09'],
                    $db->first($sql, [7, 'x', 1.5, true, null, $date]),
                );
            }
            self::assertSame(['v' => 3], $db->first('SELECT :v AS v', ['v' => 3]));
            self::assertSame(['v' => 'y'], $db->first('SELECT :v AS v', [':v' => 'y']));
            $this->expectException(DatabaseError::class);
            $db->first('SELECT ? AS v', [[1]]);
        });
    }

    /** query() binds with lines of its own (inlined for speed): every other way must bind the same. */
    public function testEveryWayOfRunningAQueryBindsTheSame(): void
    {
        $this->async(function (): void {
            $db = Database::fromUrl("sqlite://{$this->file}");
            $sql = 'SELECT ? AS i, ? AS s, ? AS f, ? AS b, ? AS n, ? AS d';
            $params = [7, 'x', 1.5, true, null, new \DateTimeImmutable('2024-05-06 07:08:09')];
            $expected = [['i' => 7, 's' => 'x', 'f' => '1.5', 'b' => 1, 'n' => null, 'd' => '2024-05-06 07:08:09']];
            $connection = $db->connection();
            self::assertSame($expected, $connection->query($sql, $params));
            self::assertSame($expected, $connection->prepare($sql)->query($params));
            self::assertSame($expected, \iterator_to_array($connection->stream($sql, $params)));
            $named = 'SELECT :v AS v, :w AS w';
            $namedParams = ['v' => 3, ':w' => 'y'];
            self::assertSame([['v' => 3, 'w' => 'y']], $connection->query($named, $namedParams));
            self::assertSame([['v' => 3, 'w' => 'y']], $connection->prepare($named)->query($namedParams));
            try {
                $connection->query('SELECT ?', [new \stdClass()]);
                self::fail('expected a DatabaseError');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('Parameter #1 is a stdClass', $e->getMessage());
            }
            $db->close();
        });
    }

    public function testUrlParsing(): void
    {
        $mysql = DatabaseConfig::fromUrl('mysql://us%40er:p%3Ass@db.local:3307/app?charset=utf8mb4');
        self::assertSame(['mysql', 'db.local', 3307, 'us@er', 'p:ss', 'app', ['charset' => 'utf8mb4']], [$mysql->driver, $mysql->host, $mysql->port, $mysql->user, $mysql->password, $mysql->database, $mysql->options]);
        $pg = DatabaseConfig::fromUrl('postgres://u@%2Fvar%2Frun%2Fpostgresql/db');
        self::assertSame(['pgsql', '/var/run/postgresql', null], [$pg->driver, $pg->socket, $pg->host]);
        self::assertSame(':memory:', DatabaseConfig::fromUrl('sqlite::memory:')->database);
        self::assertSame('/abs/path.db', DatabaseConfig::fromUrl('sqlite:///abs/path.db')->database);
        self::assertSame('mysql://root:***@host/db', DatabaseConfig::redact('mysql://root:secret@host/db'));
        self::assertSame('mysql://root@host/db?x=a@b', DatabaseConfig::redact('mysql://root@host/db?x=a@b'), 'no password');
        foreach (['p@ss', 'p/s@s', 'p?s#s', "p\ns"] as $password) {
            try {
                DatabaseConfig::fromUrl("mysql://root:{$password}@host:99999/db");
                self::fail("a malformed URL was accepted with the password {$password}");
            } catch (\InvalidArgumentException $e) {
                self::assertStringEndsWith(': mysql://root:***@host:99999/db', $e->getMessage(), "no part of {$password} shows");
            }
        }
        \ob_start();
        \var_dump(DatabaseConfig::fromUrl('mysql://root:s3cr3t@host/db'));
        $dump = (string) \ob_get_clean();
        self::assertStringNotContainsString('s3cr3t', $dump . \print_r(DatabaseConfig::fromUrl('mysql://root:s3cr3t@host/db'), true));
        self::assertStringContainsString('***', $dump);
        $this->expectExceptionMessage('Unsupported database scheme "oracle"');
        DatabaseConfig::fromUrl('oracle://x@y/z');
    }
}
