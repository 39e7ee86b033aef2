<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model;

use Closure;
use Petrel\Web\Model\Dialect\MysqlDialect;
use Petrel\Web\Model\Dialect\PgsqlDialect;
use Petrel\Web\Model\Dialect\SqliteDialect;
use Petrel\Web\Model\Query;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * SQL and bindings of builder calls, per dialect, with no database. Expected SQL is written
 * with double-quoted identifiers; for MySQL every `"` becomes a backtick.
 */
final class QueryBuilderTest extends TestCase
{
    /** @return iterable<string, array{Closure, string, list<mixed>, array<string, string>}> */
    public static function statements(): iterable
    {
        $users = static fn (Closure $build): Closure => static fn (Query $q): array => $build($q->table('users'))->toSql();
        yield 'select star' => [$users(static fn (Query $q) => $q), 'SELECT * FROM "users"', [], []];
        yield 'columns, dotted, alias, table star' => [
            $users(static fn (Query $q) => $q->select('id', 'users.name AS n', 'posts.*', 'email as mail')),
            'SELECT "id", "users"."name" AS "n", "posts".*, "email" AS "mail" FROM "users"', [], [],
        ];
        yield 'raw column with binding, distinct' => [
            $users(static fn (Query $q) => $q->distinct()->select('name', Query::raw('COALESCE(age, ?) AS age', [0]))),
            'SELECT DISTINCT "name", COALESCE(age, ?) AS age FROM "users"', [0], [],
        ];
        yield 'table alias' => [$users(static fn (Query $q) => $q->table('users as u')->where('u.id', 1)), 'SELECT * FROM "users" AS "u" WHERE "u"."id" = ?', [1], []];
        yield 'quotes inside identifiers are doubled' => [
            static fn (Query $q): array => $q->table('we"ird`t')->select('a"b')->toSql(),
            'SELECT "a""b" FROM "we""ird`t"', [], ['mysql' => 'SELECT `a"b` FROM `we"ird``t`'],
        ];
        yield 'where = (two arguments) and operators' => [
            $users(static fn (Query $q) => $q->where('name', 'Bob')->where('age', '>=', 18)->where('age', '<', 65)->where('status', '!=', 'x')->where('kind', '<>', 'y')),
            'SELECT * FROM "users" WHERE "name" = ? AND "age" >= ? AND "age" < ? AND "status" != ? AND "kind" <> ?', ['Bob', 18, 65, 'x', 'y'], [],
        ];
        yield 'operators are case- and space-insensitive' => [
            $users(static fn (Query $q) => $q->where('name', 'LIKE', 'A%')->where('name', ' Not   Like ', '%z')),
            'SELECT * FROM "users" WHERE "name" LIKE ? AND "name" NOT LIKE ?', ['A%', '%z'], [],
        ];
        yield 'orWhere' => [
            $users(static fn (Query $q) => $q->where('a', 1)->orWhere('b', '>', 2)),
            'SELECT * FROM "users" WHERE "a" = ? OR "b" > ?', [1, 2], [],
        ];
        yield 'nested groups' => [
            $users(static fn (Query $q) => $q->where('active', true)->where(
                static fn (Query $g) => $g->where('role', 'admin')->orWhere(static fn (Query $h) => $h->where('role', 'editor')->where('age', '>', 30)),
            )),
            'SELECT * FROM "users" WHERE "active" = ? AND ("role" = ? OR ("role" = ? AND "age" > ?))', [true, 'admin', 'editor', 30], [],
        ];
        yield 'empty group is dropped' => [$users(static fn (Query $q) => $q->where(static fn (Query $g) => $g)), 'SELECT * FROM "users"', [], []];
        yield 'whereNot and orWhereNot' => [
            $users(static fn (Query $q) => $q->whereNot('banned', true)->orWhereNot(static fn (Query $g) => $g->where('a', 1)->orWhere('b', 2))),
            'SELECT * FROM "users" WHERE NOT ("banned" = ?) OR NOT ("a" = ? OR "b" = ?)', [true, 1, 2], [],
        ];
        yield 'where(array)' => [
            $users(static fn (Query $q) => $q->where(['name' => 'Ann', 'age' => 3])->orWhere(['id' => 9])),
            'SELECT * FROM "users" WHERE ("name" = ? AND "age" = ?) OR ("id" = ?)', ['Ann', 3, 9], [],
        ];
        yield 'in, not in, empty lists' => [
            $users(static fn (Query $q) => $q->whereIn('id', [1, 2, 3])->whereNotIn('role', ['x'])->orWhere('id', 'in', [])->whereNotIn('id', [])),
            'SELECT * FROM "users" WHERE "id" IN (?, ?, ?) AND "role" NOT IN (?) OR 0 = 1 AND 1 = 1', [1, 2, 3, 'x'], [],
        ];
        yield 'in a sub-query' => [
            $users(static fn (Query $q) => $q->where('active', 1)->whereIn('id', Query::on($q->dialect())->table('posts')->select('user_id')->where('published', true))),
            'SELECT * FROM "users" WHERE "active" = ? AND "id" IN (SELECT "user_id" FROM "posts" WHERE "published" = ?)', [1, true], [],
        ];
        yield 'null checks' => [
            $users(static fn (Query $q) => $q->whereNull('a')->whereNotNull('b')->where('c', null)->where('d', '<>', null)->where('e', 'is', true)->where('f', 'is not', false)),
            'SELECT * FROM "users" WHERE "a" IS NULL AND "b" IS NOT NULL AND "c" IS NULL AND "d" IS NOT NULL AND "e" IS TRUE AND "f" IS NOT FALSE', [], [],
        ];
        yield 'whereColumn and raw conditions' => [
            $users(static fn (Query $q) => $q->whereColumn('updated_at', '>', 'users.created_at')->where(Query::raw('age % ? = 0', [2]))->where(Query::raw('LOWER(name)'), 'ann')),
            'SELECT * FROM "users" WHERE "updated_at" > "users"."created_at" AND (age % ? = 0) AND LOWER(name) = ?', [2, 'ann'], [],
        ];
        yield 'raw value' => [
            $users(static fn (Query $q) => $q->where('created_at', '<', Query::raw('CURRENT_TIMESTAMP'))),
            'SELECT * FROM "users" WHERE "created_at" < CURRENT_TIMESTAMP', [], [],
        ];
        yield 'joins' => [
            $users(static fn (Query $q) => $q->select('users.name', 'p.title')->join('posts as p', 'p.user_id', '=', 'users.id')->leftJoin('tags', Query::raw('tags.post_id = p.id AND tags.kind = ?', ['t']))->where('p.id', '>', 5)),
            'SELECT "users"."name", "p"."title" FROM "users" INNER JOIN "posts" AS "p" ON "p"."user_id" = "users"."id" LEFT JOIN "tags" ON tags.post_id = p.id AND tags.kind = ? WHERE "p"."id" > ?', ['t', 5], [],
        ];
        yield 'group by, having, order' => [
            $users(static fn (Query $q) => $q->select('role', Query::raw('COUNT(*) AS n'))->where('active', 1)->groupBy('role')->having(Query::raw('COUNT(*)'), '>', 2)->orderBy('role', 'DESC')->orderBy(Query::raw('MAX(age)'))),
            'SELECT "role", COUNT(*) AS n FROM "users" WHERE "active" = ? GROUP BY "role" HAVING COUNT(*) > ? ORDER BY "role" DESC, MAX(age) ASC', [1, 2], [],
        ];
        yield 'limit and offset' => [$users(static fn (Query $q) => $q->orderBy('id')->limit(10)->offset(20)), 'SELECT * FROM "users" ORDER BY "id" ASC LIMIT 10 OFFSET 20', [], []];
        yield 'offset without limit' => [
            $users(static fn (Query $q) => $q->offset(5)), 'SELECT * FROM "users" OFFSET 5', [],
            ['mysql' => 'SELECT * FROM `users` LIMIT 18446744073709551615 OFFSET 5', 'sqlite' => 'SELECT * FROM "users" LIMIT -1 OFFSET 5'],
        ];
        yield 'insert one row' => [
            static fn (Query $q): array => $q->table('users')->toInsertSql(['name' => 'Ann', 'age' => 3, 'seen' => Query::raw('CURRENT_TIMESTAMP')]),
            'INSERT INTO "users" ("name", "age", "seen") VALUES (?, ?, CURRENT_TIMESTAMP)', ['Ann', 3], [],
        ];
        yield 'insert rows (keys in any order)' => [
            static fn (Query $q): array => $q->table('users')->toInsertSql([['name' => 'A', 'age' => 1], ['age' => 2, 'name' => 'B']]),
            'INSERT INTO "users" ("name", "age") VALUES (?, ?), (?, ?)', ['A', 1, 'B', 2], [],
        ];
        yield 'insert returning the key: PostgreSQL only' => [
            static fn (Query $q): array => $q->table('users')->toInsertSql(['name' => 'A'], 'id'),
            'INSERT INTO "users" ("name") VALUES (?)', ['A'], ['pgsql' => 'INSERT INTO "users" ("name") VALUES (?) RETURNING "id"'],
        ];
        yield 'insert default values' => [
            static fn (Query $q): array => $q->table('users')->toInsertSql([[]], 'id'),
            'INSERT INTO "users" DEFAULT VALUES', [], ['mysql' => 'INSERT INTO `users` () VALUES ()', 'pgsql' => 'INSERT INTO "users" DEFAULT VALUES RETURNING "id"'],
        ];
        yield 'update' => [
            static fn (Query $q): array => $q->table('users')->where('id', 7)->toUpdateSql(['name' => 'B', 'visits' => Query::raw('visits + ?', [1]), 'note' => null]),
            'UPDATE "users" SET "name" = ?, "visits" = visits + ?, "note" = ? WHERE "id" = ?', ['B', 1, null, 7], [],
        ];
        yield 'delete' => [
            static fn (Query $q): array => $q->table('users')->where('age', '<', 3)->orWhere('name', null)->toDeleteSql(),
            'DELETE FROM "users" WHERE "age" < ? OR "name" IS NULL', [3], [],
        ];
        yield 'delete everything' => [static fn (Query $q): array => $q->table('users')->toDeleteSql(), 'DELETE FROM "users"', [], []];
    }

    /**
     * @param Closure(Query<array<string, mixed>>): mixed $build
     * @param list<mixed> $bindings
     * @param array<string, string> $overrides dialect => expected SQL ('-': not for that dialect)
     */
    #[DataProvider('statements')]
    public function testSqlAndBindingsPerDialect(Closure $build, string $expected, array $bindings, array $overrides): void
    {
        foreach ([new MysqlDialect(), new PgsqlDialect(), new SqliteDialect()] as $dialect) {
            $sql = $overrides[$dialect->name()] ?? ($dialect->name() === 'mysql' ? \str_replace('"', '`', $expected) : $expected);
            if ($sql === '-') {
                continue;
            }
            self::assertSame([$sql, $bindings], $build(Query::on($dialect)), $dialect->name());
        }
    }

    public function testIlikeIsPostgresOnly(): void
    {
        self::assertSame(['SELECT * FROM "t" WHERE "name" ILIKE ?', ['a%']], Query::on(new PgsqlDialect())->table('t')->where('name', 'ilike', 'a%')->toSql());
        foreach ([new MysqlDialect(), new SqliteDialect()] as $dialect) {
            $this->assertQueryError(static fn () => Query::on($dialect)->table('t')->where('name', 'ilike', 'a%'), 'Unsupported operator "ilike"');
        }
    }

    /** @return iterable<string, array{string}> */
    public static function badOperators(): iterable
    {
        foreach (['= 1 OR 1 = 1 --', '; DROP TABLE t', '==', '=>', 'regexp', 'between', '', 'like; --'] as $operator) {
            yield $operator => [$operator];
        }
    }

    #[DataProvider('badOperators')]
    public function testOperatorsOutsideTheWhitelistAreErrors(string $operator): void
    {
        foreach ([new MysqlDialect(), new PgsqlDialect(), new SqliteDialect()] as $dialect) {
            $query = Query::on($dialect)->table('t');
            $this->assertQueryError(static fn () => $query->where('a', $operator, 1), 'Unsupported operator');
            $this->assertQueryError(static fn () => $query->having('a', $operator, 1), 'Unsupported operator');
            $this->assertQueryError(static fn () => $query->whereColumn('a', $operator, 'b'), 'Unsupported operator');
            $this->assertQueryError(static fn () => $query->join('u', 'u.id', $operator, 't.id'), 'Unsupported operator');
        }
    }

    public function testMisuseIsAnError(): void
    {
        $q = Query::on(new SqliteDialect())->table('t');
        $this->assertQueryError(static fn () => $q->orderBy('a', 'sideways'), 'Sort direction');
        $this->assertQueryError(static fn () => $q->where('a', '>', null), 'Cannot compare');
        $this->assertQueryError(static fn () => $q->where('a', '=', [1, 2]), 'only a valid value for the "in"');
        $this->assertQueryError(static fn () => $q->where('a', 'in', 5), 'takes an array');
        $this->assertQueryError(static fn () => $q->where('a', 'is', 5), 'takes null, true or false');
        $this->assertQueryError(static fn () => $q->where('a'), 'needs a value');
        $this->assertQueryError(static fn () => $q->where('a', 5, 1), 'operator must be a string');
        $this->assertQueryError(static fn () => $q->where(static fn (Query $g) => null), 'must return the query'); // @phpstan-ignore argument.type
        $this->assertQueryError(static fn () => $q->where([1, 2]), 'column => value'); // @phpstan-ignore argument.type
        $this->assertQueryError(static fn () => $q->select('a..b'), 'Invalid identifier');
        $this->assertQueryError(static fn () => $q->limit(-1), 'limit()');
        $this->assertQueryError(static fn () => $q->offset(-1), 'offset()');
        $this->assertQueryError(static fn () => $q->join('u', 'u.id'), 'join() needs');
        $this->assertQueryError(static fn () => $q->whereColumn('a', 'in', 'b'), 'cannot be compared');
        $this->assertQueryError(static fn () => Query::on(new SqliteDialect())->toSql(), 'no table');
        $this->assertQueryError(static fn () => $q->toInsertSql([]), 'Nothing to insert');
        $this->assertQueryError(static fn () => $q->toInsertSql([['a' => 1], ['b' => 2]]), 'different columns');
        $this->assertQueryError(static fn () => $q->toInsertSql([['a' => 1], ['a' => 2, 'b' => 3]]), 'different columns');
        $this->assertQueryError(static fn () => $q->toInsertSql([1, 2]), 'takes a row');
        $this->assertQueryError(static fn () => $q->toUpdateSql([]), 'at least one column');
        $this->assertQueryError(static fn () => $q->join('u', 'u.id', '=', 't.id')->toUpdateSql(['a' => 1]), 'update() takes only where()');
        $this->assertQueryError(static fn () => $q->limit(1)->toDeleteSql(), 'delete() takes only where()');
        $this->assertQueryError(static fn () => $q->whereIn('id', Query::on(new MysqlDialect())->table('u')), 'same SQL dialect');
        $this->assertQueryError(static fn () => $q->get(), 'built for a dialect only');
        $this->assertQueryError(static fn () => $q->delete(), 'built for a dialect only');
    }

    public function testQueriesAreImmutable(): void
    {
        $base = Query::on(new PgsqlDialect())->table('users')->where('active', true);
        $admins = $base->where('role', 'admin')->orderBy('name')->limit(5);
        $mapped = $base->map(static fn (array $row): int => \count($row));
        self::assertSame(['SELECT * FROM "users" WHERE "active" = ?', [true]], $base->toSql());
        self::assertSame(['SELECT * FROM "users" WHERE "active" = ? AND "role" = ? ORDER BY "name" ASC LIMIT 5', [true, 'admin']], $admins->toSql());
        self::assertSame($base->toSql(), $mapped->toSql());
        self::assertNotSame($base, $base->limit(null));
    }

    public function testInjectionAttemptsStayDataOrIdentifiers(): void
    {
        $evil = "x'; DROP TABLE users; --";
        [$sql, $bindings] = Query::on(new MysqlDialect())->table('users')->select("name` FROM users; --")->where('name', $evil)->toSql();
        self::assertSame('SELECT `name`` FROM users; --` FROM `users` WHERE `name` = ?', $sql);
        self::assertSame([$evil], $bindings);
    }

    private function assertQueryError(Closure $call, string $message): void
    {
        try {
            $call();
            self::fail("Expected a QueryError containing \"{$message}\"");
        } catch (\Petrel\Web\Model\QueryError $error) {
            self::assertStringContainsString($message, $error->getMessage());
        }
    }
}
