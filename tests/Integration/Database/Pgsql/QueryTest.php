<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Bytea;
use Petrel\Database\Pgsql\Internal\Exchange;
use Petrel\Database\Pgsql\Internal\RowDecoder;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(PgsqlConnection::class)]
#[CoversClass(Exchange::class)]
#[CoversClass(RowDecoder::class)]
final class QueryTest extends PgsqlTestCase
{
    public function testTypesComeBackAsPhpTypes(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $row = $db->query(
                "SELECT 1::int2 AS i2, (-2147483648)::int4 AS i4, 9223372036854775807::int8 AS i8, (-9223372036854775807 - 1)::int8 AS i8min,
                        42::oid AS oid, 1.5::float8 AS f8, 0.25::float4 AS f4, 'NaN'::float8 AS nan, 'Infinity'::float8 AS inf,
                        '-Infinity'::float4 AS ninf, true AS t, false AS f, NULL::int AS n, 12345678901234567890.123456789::numeric AS num,
                        'héllo 🙂' AS txt, '\\x00ff00'::bytea AS bin, '{\"b\": [1, 2], \"a\": null}'::jsonb AS jb, '{\"x\" : 1}'::json AS j,
                        '2024-02-29'::date AS d, ARRAY[1, 2, 3]::int[] AS arr, '1 day'::interval AS iv",
            )[0];
            self::assertSame(1, $row['i2']);
            self::assertSame(-2147483648, $row['i4']);
            self::assertSame(\PHP_INT_MAX, $row['i8']);
            self::assertSame(\PHP_INT_MIN, $row['i8min']);
            self::assertSame(42, $row['oid']);
            self::assertSame(1.5, $row['f8']);
            self::assertSame(0.25, $row['f4']);
            self::assertIsFloat($row['nan']);
            self::assertNan($row['nan']);
            self::assertSame(\INF, $row['inf']);
            self::assertSame(-\INF, $row['ninf']);
            self::assertTrue($row['t']);
            self::assertFalse($row['f']);
            self::assertNull($row['n']);
            self::assertSame('12345678901234567890.123456789', $row['num']);
            self::assertSame('héllo 🙂', $row['txt']);
            self::assertSame("\x00\xff\x00", $row['bin']);
            self::assertSame('{"a": null, "b": [1, 2]}', $row['jb']); // jsonb as the server prints it; not decoded
            self::assertSame('{"x" : 1}', $row['j']);                // json keeps the input text
            self::assertSame('2024-02-29', $row['d']);
            self::assertSame('{1,2,3}', $row['arr']);
            self::assertSame('1 day', $row['iv']);
        });
    }

    public function testParameterRoundTripsThroughATable(): void
    {
        $table = $this->table('types');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("SET TIME ZONE 'UTC'");
            $db->execute("CREATE TABLE {$table} (id serial PRIMARY KEY, i2 int2, i4 int4, i8 int8, num numeric(30, 10), f8 float8, f4 float4,
                b bool, txt text, bin bytea, jb jsonb, d date, ts timestamp, tz timestamptz, arr int[])");
            $bytes = "\x00\x01\x02\\x\xff'\"\x00";
            $when = new \DateTimeImmutable('2024-02-29 13:14:15.123456', new \DateTimeZone('+02:00'));
            $values = [
                'i2' => -32768, 'i4' => 2147483647, 'i8' => \PHP_INT_MAX, 'num' => '-12345678901234567890.0123456789', 'f8' => 0.1 + 0.2,
                'f4' => 1.5, 'b' => false, 'txt' => "it's \"quoted\" \\ 🙂 ünïcode", 'bin' => new Bytea($bytes), 'jb' => '{"k": [1, "two"]}',
                'd' => '2024-02-29', 'ts' => $when, 'tz' => $when, 'arr' => '{4,5,6}',
            ];
            $columns = \implode(', ', \array_keys($values));
            $placeholders = \implode(', ', \array_map(static fn (string $c): string => ":{$c}", \array_keys($values)));
            $id = $db->execute("INSERT INTO {$table} ({$columns}) VALUES ({$placeholders}) RETURNING id", $values)->lastInsertId;
            self::assertSame(1, $id);
            $db->execute("INSERT INTO {$table} (i2) VALUES (?)", [null]);
            $row = $db->query("SELECT * FROM {$table} WHERE id = ?", [$id])[0];
            self::assertSame(-32768, $row['i2']);
            self::assertSame(2147483647, $row['i4']);
            self::assertSame(\PHP_INT_MAX, $row['i8']);
            self::assertSame('-12345678901234567890.0123456789', $row['num']);
            self::assertSame(0.1 + 0.2, $row['f8']);
            self::assertSame(1.5, $row['f4']);
            self::assertFalse($row['b']);
            self::assertSame("it's \"quoted\" \\ 🙂 ünïcode", $row['txt']);
            self::assertSame($bytes, $row['bin']);
            self::assertSame('{"k": [1, "two"]}', $row['jb']);
            self::assertSame('2024-02-29', $row['d']);
            self::assertSame('2024-02-29 13:14:15.123456', $row['ts']);     // timestamp: the wall time, offset dropped
            self::assertSame('2024-02-29 11:14:15.123456+00', $row['tz']);  // timestamptz: the instant, shown in UTC
            self::assertSame('{4,5,6}', $row['arr']);
            $nulls = $db->query("SELECT * FROM {$table} WHERE i2 IS NULL")[0];
            self::assertSame(2, $nulls['id']);
            self::assertNull($nulls['bin']);
            self::assertNull($nulls['b']);
        });
    }

    public function testFloatSpecialsAndBooleansAsParameters(): void
    {
        $this->async(function (): void {
            $row = $this->connect()->query('SELECT ?::float8 AS nan, ?::float8 AS inf, ?::float8 AS ninf, ?::bool AS t, ?::bool AS f, ?::int IS NULL AS n', [\NAN, \INF, -\INF, true, false, null])[0];
            self::assertNan($row['nan']);
            self::assertSame(\INF, $row['inf']);
            self::assertSame(-\INF, $row['ninf']);
            self::assertSame([true, false, true], [$row['t'], $row['f'], $row['n']]);
        });
    }

    public function testPlaceholderStyles(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            self::assertSame([['a' => 1, 'b' => 'x']], $db->query('SELECT ?::int AS a, ?::text AS b', [1, 'x']));
            self::assertSame([['a' => 2, 'b' => 2]], $db->query('SELECT :v::int AS a, :v::int AS b', ['v' => 2]));
            self::assertSame([['a' => 3]], $db->query('SELECT $1::int AS a', [3]));
            self::assertSame([['q' => '?', 'c' => ':x', 'd' => "it's"]], $db->query("SELECT '?' AS q, ':x' AS c, 'it''s' AS d"));
            self::assertSame([['has' => true]], $db->query("SELECT '{\"k\": 1}'::jsonb ?? ? AS has", ['k']));
            self::assertSame([['has' => true]], $db->query("SELECT '{\"k\": 1}'::jsonb ?? 'k' AS has"));
            self::assertSame([['v' => '?']], $db->query('SELECT $q$?$q$ AS v -- ? :x'));
        });
    }

    public function testNativePlaceholdersOfTheStatementItself(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $db->execute('PREPARE petrel_plus_one (int) AS SELECT $1 + 1 AS v');
            self::assertSame([['v' => 6]], $db->query('EXECUTE petrel_plus_one(5)'));
            $db->execute('DEALLOCATE petrel_plus_one');
            $db->execute('CREATE FUNCTION pg_temp.petrel_twice(int) RETURNS int LANGUAGE sql RETURN $1 * 2');
            self::assertSame([['v' => 8]], $db->query('SELECT pg_temp.petrel_twice(?) AS v', [4]));
        });
    }

    public function testInjectionStaysData(): void
    {
        $table = $this->table('inj');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (name text)");
            $evil = ["x'); DROP TABLE {$table}; --", "'; SELECT pg_sleep(5); --", '$1', '?', ':name', "\\'", '$$ $$'];
            foreach ($evil as $value) {
                $db->execute("INSERT INTO {$table} (name) VALUES (?)", [$value]);
            }
            self::assertSame($evil, \array_column($db->query("SELECT name FROM {$table}"), 'name'));
            self::assertSame([], $db->query("SELECT name FROM {$table} WHERE name = :n", ['n' => "' OR '1'='1"]));
        });
    }

    public function testMisuseIsADatabaseErrorAndLeavesTheConnectionUsable(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            foreach ([
                static fn () => $db->query('SELECT ?, ?', [1]),
                static fn () => $db->query('SELECT ?', [1, 2]),
                static fn () => $db->query('SELECT ?, :a', [1]),
                static fn () => $db->query('SELECT :a', ['a' => 1, 'b' => 2]),
                static fn () => $db->query('SELECT ?', ["a\0b"]),
                static fn () => $db->query('SELECT ?', [[1]]),
            ] as $misuse) {
                try {
                    $misuse();
                    self::fail('expected a DatabaseError');
                } catch (DatabaseError) {
                }
            }
            self::assertTrue($db->isUsable());
            self::assertSame([['one' => 1]], $db->query('SELECT 1 AS one'));
        });
    }

    public function testExecuteReportsAffectedRowsAndReturningIds(): void
    {
        $table = $this->table('ids');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $created = $db->execute("CREATE TABLE {$table} (id bigserial PRIMARY KEY, code uuid DEFAULT gen_random_uuid(), name text)");
            self::assertSame(0, $created->affectedRows);
            self::assertNull($created->lastInsertId);
            $plain = $db->execute("INSERT INTO {$table} (name) VALUES (?), (?)", ['a', 'b']);
            self::assertSame(2, $plain->affectedRows);
            self::assertNull($plain->lastInsertId); // no RETURNING: PostgreSQL has no last insert id
            $returning = $db->execute("INSERT INTO {$table} (name) VALUES (?) RETURNING id", ['c']);
            self::assertSame(1, $returning->affectedRows);
            self::assertSame(3, $returning->lastInsertId);
            $uuid = $db->execute("INSERT INTO {$table} (name) VALUES ('d') RETURNING code, id")->lastInsertId;
            self::assertIsString($uuid);
            self::assertMatchesRegularExpression('/^[0-9a-f-]{36}$/', $uuid);
            $updated = $db->execute("UPDATE {$table} SET name = upper(name) WHERE id <= ? RETURNING id", [2]);
            self::assertSame(2, $updated->affectedRows);
            self::assertSame(2, $db->execute("DELETE FROM {$table} WHERE name IN (?, ?)", ['A', 'B'])->affectedRows);
            self::assertNull($db->execute("SELECT * FROM {$table}")->lastInsertId);
        });
    }

    public function testServerErrorsAreQueryExceptions(): void
    {
        $table = $this->table('uniq');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id int PRIMARY KEY)");
            $db->execute("INSERT INTO {$table} VALUES (?)", [1]);
            try {
                $db->execute("INSERT INTO {$table} VALUES (?)", [1]);
                self::fail('duplicate key accepted');
            } catch (QueryException $e) {
                self::assertSame('23505', $e->getSqlState());
                self::assertSame('23505', $e->getDriverCode());
                self::assertSame("INSERT INTO {$table} VALUES (?)", $e->getSql());
                self::assertStringContainsString('duplicate key value violates unique constraint', $e->getMessage());
                self::assertStringContainsString('Key (id)=(1) already exists', $e->getMessage());
            }
            try {
                $db->query('SELEC 1');
                self::fail('syntax error accepted');
            } catch (QueryException $e) {
                self::assertSame('42601', $e->getSqlState());
            }
            self::assertTrue($db->isUsable());
            self::assertSame([['n' => 1]], $db->query("SELECT count(*)::int AS n FROM {$table}"));
        });
    }

    public function testSeveralStatementsWithoutParameters(): void
    {
        $table = $this->table('multi');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $rows = $db->query("CREATE TABLE {$table} (v int); INSERT INTO {$table} VALUES (1), (2); SELECT sum(v)::int AS s FROM {$table}");
            self::assertSame([['s' => 3]], $rows);
            $this->expectException(QueryException::class);
            $db->query("SELECT 1; SELECT ?", [1]); // with parameters: one statement only
        });
    }

    public function testLargeParameterAndResultDoNotBlock(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $big = \str_repeat('0123456789abcdef', 1 << 20); // 16 MiB: more than the socket buffer, so pg_flush() runs
            $ticks = 0;
            $ticker = \Petrel\go(static function () use (&$ticks): void {
                while ($ticks >= 0) {
                    \Petrel\sleep(0.001);
                    $ticks++;
                }
            });
            $row = $db->query('SELECT length(?::text) AS n, md5(?::text) AS h', [$big, $big])[0];
            $echo = $db->query('SELECT ?::text AS v', [$big])[0]['v'];
            $seen = $ticks;
            $ticks = -10;
            $ticker->join();
            self::assertSame(\strlen($big), $row['n']);
            self::assertSame(\md5($big), $row['h']);
            self::assertSame($big, $echo);
            self::assertGreaterThan(0, $seen, 'other coroutines ran while the big query was in flight');
        });
    }

    /**
     * Exchange relies on an ext-pgsql quirk: stream_set_blocking(pg_socket($c), true) turns
     * libpq's NONblocking mode on (the flag goes straight to PQsetnonblocking()). If PHP ever
     * fixes that, a send larger than the socket buffer would block the worker: this fails first.
     */
    public function testExtPgsqlNonblockingQuirkStillHolds(): void
    {
        $config = self::config();
        $handle = \pg_connect(\sprintf(
            "host='%s' port='%d' user='%s' password='%s' dbname='%s'",
            $config->host ?? 'localhost',
            $config->port ?? 5432,
            \addcslashes((string) $config->user, "'\\"),
            \addcslashes((string) $config->password, "'\\"),
            \addcslashes((string) $config->database, "'\\"),
        ), \PGSQL_CONNECT_FORCE_NEW);
        self::assertNotFalse($handle);
        $socket = \pg_socket($handle);
        self::assertIsResource($socket);
        \stream_set_blocking($socket, true);
        $sent = \pg_send_query_params($handle, 'SELECT length($1::text)', [\str_repeat('x', 32 << 20)]);
        self::assertSame(0, $sent, 'libpq was in blocking mode: pg_send_query_params() flushed everything itself');
        while (\pg_flush($handle) === 0) {
            \usleep(1000);
        }
        $result = \pg_get_result($handle);
        self::assertNotFalse($result);
        self::assertSame('33554432', \pg_fetch_result($result, 0, 0));
        \pg_close($handle);
    }

    public function testCopyFromStdinIsRefusedAndTheConnectionStaysUsable(): void
    {
        $table = $this->table('copy');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (v int)");
            try {
                $db->execute("COPY {$table} FROM STDIN");
                self::fail('COPY FROM STDIN accepted');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('not supported', $e->getMessage());
            }
            self::assertTrue($db->isUsable());
            self::assertSame([['n' => 0]], $db->query("SELECT count(*) AS n FROM {$table}"));
        });
    }

    /** One the pre-check cannot see (after a leading comment) is refused by the server's answer, closing the connection. */
    public function testCopyHiddenBehindACommentIsStillRefused(): void
    {
        $table = $this->table('copy');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (v int)");
            try {
                $db->execute("/* bulk */ COPY {$table} TO STDOUT");
                self::fail('COPY TO STDOUT accepted');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('not supported', $e->getMessage());
            }
        });
    }
}
