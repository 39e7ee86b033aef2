<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\Internal\StatementCache;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(PgsqlConnection::class)]
#[CoversClass(StatementCache::class)]
final class StatementCacheTest extends PgsqlTestCase
{
    public function testRepeatedStatementsArePreparedOnTheirSecondRun(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $sql = 'SELECT ?::int * 2 AS v';
            self::assertSame([['v' => 2]], $db->query($sql, [1]));
            self::assertSame([], $this->cached($db));
            self::assertSame([['v' => 4]], $db->query($sql, [2]));
            self::assertSame([['v' => 6]], $db->query($sql, [3]));
            self::assertSame(['SELECT $1::int * 2 AS v'], $this->cached($db));
            $db->query('SELECT 1; SELECT 2'); // several statements: never prepared
            $db->query('SELECT 1; SELECT 2');
            $db->query('SHOW application_name'); // not a query or DML: never prepared
            $db->query('SHOW application_name');
            self::assertSame(['SELECT $1::int * 2 AS v'], $this->cached($db));
        });
    }

    public function testStatementCacheCanBeTurnedOff(): void
    {
        $this->async(function (): void {
            $db = $this->connect(self::config(['statement_cache' => '0']));
            for ($i = 0; $i < 3; $i++) {
                $db->query('SELECT ?::int AS v', [$i]);
            }
            self::assertSame([], $this->cached($db));
        });
    }

    public function testLeastRecentlyUsedStatementIsEvictedAndDeallocated(): void
    {
        $this->async(function (): void {
            $db = $this->connect(self::config(['statement_cache' => '2']));
            foreach (['SELECT 1 AS a', 'SELECT 2 AS b', 'SELECT 1 AS a', 'SELECT 3 AS c'] as $sql) {
                $db->query($sql);
                $db->query($sql);
            }
            $db->query('SELECT 0'); // the eviction's DEALLOCATE goes out after a command
            self::assertSame(['SELECT 1 AS a', 'SELECT 3 AS c'], $this->cached($db));
        });
    }

    public function testChangedResultTypeIsRetriedOutsideATransaction(): void
    {
        $table = $this->table('stale');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id int)");
            $db->execute("INSERT INTO {$table} VALUES (1)");
            $sql = "SELECT * FROM {$table}";
            $db->query($sql);
            self::assertSame([['id' => 1]], $db->query($sql)); // prepared now
            $db->execute("ALTER TABLE {$table} ADD COLUMN name text DEFAULT 'n'");
            self::assertSame([['id' => 1, 'name' => 'n']], $db->query($sql), 'cached plan must not change result type: retried');

            $db->query($sql); // seen again…
            $db->query($sql); // …and prepared again
            $db->execute("ALTER TABLE {$table} ADD COLUMN extra int");
            $db->beginTransaction();
            try {
                $db->query($sql);
                self::fail('stale statement in a transaction');
            } catch (QueryException $e) {
                self::assertSame('0A000', $e->getSqlState()); // the transaction is aborted: no silent retry
            }
            $db->rollBack();
            self::assertSame([['id' => 1, 'name' => 'n', 'extra' => null]], $db->query($sql));
        });
    }

    public function testRowTypesFollowAColumnWhoseTypeChanged(): void
    {
        $table = $this->table('retyped');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id int, flag bool)");
            $db->execute("INSERT INTO {$table} VALUES (7, true)");
            $sql = "SELECT * FROM {$table}";
            for ($i = 0; $i < 3; $i++) { // once unnamed, then prepared, then by the kept casts
                self::assertSame([['id' => 7, 'flag' => true]], $db->query($sql));
            }
            $db->execute("ALTER TABLE {$table} ALTER COLUMN id TYPE text, ALTER COLUMN flag TYPE int USING flag::int");
            for ($i = 0; $i < 3; $i++) { // retried unnamed, then prepared again, then its own casts
                self::assertSame([['id' => '7', 'flag' => 1]], $db->query($sql));
            }
            self::assertSame(["SELECT * FROM {$table}"], $this->cached($db));
        });
    }

    public function testStatementsDeallocatedBehindItsBackAreRetried(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $db->query('SELECT 41 + 1 AS v');
            $db->query('SELECT 41 + 1 AS v');
            $db->execute('DEALLOCATE ALL');
            self::assertSame([['v' => 42]], $db->query('SELECT 41 + 1 AS v'));
            self::assertSame([['v' => 42]], $db->query('SELECT 41 + 1 AS v'));
        });
    }

    /**
     * Only the plan cache's 0A000 ("cached plan must not change result type") means the
     * statement did not run: a function's own feature_not_supported comes after it may
     * have done work, and running the statement again would do that work twice.
     */
    public function testAnotherErrorOfSqlState0A000IsNotRunAgain(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $db->execute('CREATE TEMPORARY SEQUENCE calls');
            $db->execute(<<<'SQL'
                CREATE FUNCTION pg_temp.refuse() RETURNS int LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM nextval('calls');
                    RAISE EXCEPTION 'not supported here' USING ERRCODE = '0A000';
                END $$
                SQL);
            for ($run = 1; $run <= 3; $run++) { // unnamed, then prepared, then by name
                try {
                    $db->query('SELECT pg_temp.refuse() AS r');
                    self::fail('the function raises');
                } catch (QueryException $e) {
                    self::assertSame('0A000', $e->getSqlState());
                    self::assertStringContainsString('not supported here', $e->getMessage());
                }
                self::assertSame($run, $db->query('SELECT last_value FROM calls')[0]['last_value'], "run {$run}: one call");
            }
            self::assertContains('SELECT pg_temp.refuse() AS r', $this->cached($db), 'the statement stays prepared');
        });
    }

    /** @return list<string> SQL of the statements the cache prepared (but cached()'s own) */
    private function cached(PgsqlConnection $db): array
    {
        $rows = $db->query("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'petrel\\_q%' ORDER BY statement");

        return \array_values(\array_filter(
            \array_map(static fn (array $row): string => (string) $row['statement'], $rows),
            static fn (string $sql): bool => !\str_contains($sql, 'pg_prepared_statements'),
        ));
    }
}
