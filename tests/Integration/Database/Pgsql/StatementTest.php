<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Database\Pgsql\PgsqlStatement;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(PgsqlStatement::class)]
#[CoversClass(PgsqlConnection::class)]
final class StatementTest extends PgsqlTestCase
{
    public function testPreparedStatementRunsRepeatedly(): void
    {
        $table = $this->table('stmt');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id serial PRIMARY KEY, name text, score float8)");
            $insert = $db->prepare("INSERT INTO {$table} (name, score) VALUES (:name, :score) RETURNING id");
            foreach (['a' => 1.5, 'b' => 2.5, 'c' => \NAN] as $name => $score) {
                $result = $insert->execute(['name' => $name, 'score' => $score]);
                self::assertSame(1, $result->affectedRows);
                self::assertIsInt($result->lastInsertId);
            }
            $select = $db->prepare("SELECT name, score FROM {$table} WHERE id = ?");
            self::assertSame([['name' => 'b', 'score' => 2.5]], $select->query([2]));
            self::assertSame([], $select->query([99]));
            self::assertSame(2, $this->preparedCount($db));
        });
    }

    public function testRowsAreTypedFromTheFirstResultOnEvenWhenItWasEmpty(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $select = $db->prepare('SELECT n AS id, n % 2 = 0 AS even, n * 0.5::float8 AS half, n::text AS label '
                . 'FROM generate_series(1, ?::int) AS n WHERE n > 1');
            self::assertSame([], $select->query([1])); // the columns' types come with an empty result too
            $expected = [['id' => 2, 'even' => true, 'half' => 1.0, 'label' => '2'], ['id' => 3, 'even' => false, 'half' => 1.5, 'label' => '3']];
            self::assertSame($expected, $select->query([3]));
            self::assertSame($expected, $select->query([3]));
        });
    }

    public function testCloseDeallocatesAndForbidsFurtherUse(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $statement = $db->prepare('SELECT ?::int + 1 AS v');
            self::assertSame([['v' => 2]], $statement->query([1]));
            self::assertSame(1, $this->preparedCount($db));
            $statement->close();
            $statement->close(); // idempotent
            self::assertSame(0, $this->preparedCount($db));
            $this->expectException(DatabaseError::class);
            $statement->query([1]);
        });
    }

    public function testDroppedStatementIsDeallocatedAfterTheNextCommand(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $statement = $db->prepare('SELECT 1');
            $statement->query();
            unset($statement);
            $db->query('SELECT 1'); // sends DEALLOCATE without waiting after this one
            self::assertSame(0, $this->preparedCount($db));
        });
    }

    public function testStatementErrorsAndBadParameters(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            try {
                $db->prepare('SELECT * FROM no_such_table_here');
                self::fail('prepared a query on a missing table');
            } catch (QueryException $e) {
                self::assertSame('42P01', $e->getSqlState());
            }
            $statement = $db->prepare('SELECT 10 / ?::int AS v');
            try {
                $statement->query([0]);
                self::fail('divided by zero');
            } catch (QueryException $e) {
                self::assertSame('22012', $e->getSqlState());
            }
            try {
                $statement->query([1, 2]);
                self::fail('extra parameter accepted');
            } catch (DatabaseError) {
            }
            self::assertSame([['v' => 5]], $statement->query([2]));
        });
    }

    public function testClosingInAFailedTransactionDefersTheDeallocate(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $statement = $db->prepare('SELECT 1');
            $db->beginTransaction();
            try {
                $db->query('SELECT 1 / 0');
            } catch (QueryException) {
            }
            $statement->close(); // DEALLOCATE would fail now
            $db->rollBack();
            $db->query('SELECT 1');
            self::assertSame(0, $this->preparedCount($db));
        });
    }

    private function preparedCount(PgsqlConnection $db): int
    {
        $count = $db->query('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE \'petrel\_s%\'')[0]['n'];
        self::assertIsInt($count);

        return $count;
    }
}
