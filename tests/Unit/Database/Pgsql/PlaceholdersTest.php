<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Pgsql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Internal\ParsedSql;
use Petrel\Database\Pgsql\Internal\Placeholders;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(Placeholders::class)]
#[CoversClass(ParsedSql::class)]
final class PlaceholdersTest extends TestCase
{
    /** @return iterable<string, array{string, string, int}> */
    public static function conversions(): iterable
    {
        yield 'none' => ['SELECT 1', 'SELECT 1', 0];
        yield 'positional' => ['SELECT * FROM t WHERE a = ? AND b = ?', 'SELECT * FROM t WHERE a = $1 AND b = $2', 2];
        yield 'positional without spaces' => ['VALUES(?,?,?)', 'VALUES($1,$2,$3)', 3];
        yield 'native passes through' => ['SELECT $1::int, $2', 'SELECT $1::int, $2', 2];
        yield 'native highest wins' => ['SELECT $2, $1, $2', 'SELECT $2, $1, $2', 2];
        yield 'doubled ? is a literal ?' => ["SELECT data ?? 'key' FROM t WHERE id = ?", "SELECT data ? 'key' FROM t WHERE id = \$1", 1];
        yield 'jsonb ?| escaped' => ["SELECT d ??| array['a'] WHERE x = ?", "SELECT d ?| array['a'] WHERE x = \$1", 1];
        yield '? in string' => ["SELECT '?' , ?", "SELECT '?' , \$1", 1];
        yield "'' escape in string" => ["SELECT 'it''s ?', ?", "SELECT 'it''s ?', \$1", 1];
        yield 'E-string with backslash quote' => ["SELECT E'a\\'?', ?", "SELECT E'a\\'?', \$1", 1];
        yield 'e-string lower case' => ["SELECT e'\\\\', ?", "SELECT e'\\\\', \$1", 1];
        yield 'E-string with doubled quote' => ["SELECT E'x''?', ?", "SELECT E'x''?', \$1", 1];
        yield 'standard string keeps backslash literal' => ["SELECT 'a\\', ?", "SELECT 'a\\', \$1", 1];
        yield 'identifier ending in e is not an E-string' => ["SELECT name'?' , ?", "SELECT name'?' , \$1", 1];
        yield 'dollar quoted' => ['SELECT $$ ? :x $$, ?', 'SELECT $$ ? :x $$, $1', 1];
        yield 'dollar quoted with tag' => ['SELECT $fn$ a $$ ? $fn$, ?', 'SELECT $fn$ a $$ ? $fn$, $1', 1];
        yield 'dollar in identifier' => ['SELECT a$b, ?', 'SELECT a$b, $1', 1];
        yield 'quoted identifier' => ['SELECT "we?ird"":x", ?', 'SELECT "we?ird"":x", $1', 1];
        yield 'line comment' => ["SELECT 1 -- what? :x\n, ?", "SELECT 1 -- what? :x\n, \$1", 1];
        yield 'block comment' => ['SELECT /* ? */ ?', 'SELECT /* ? */ $1', 1];
        yield 'nested block comment' => ['SELECT /* a /* ? */ ? */ ?', 'SELECT /* a /* ? */ ? */ $1', 1];
        yield 'cast' => ['SELECT ?::int, ?::text[]', 'SELECT $1::int, $2::text[]', 2];
        yield 'named' => ['SELECT :a, :b, :a', 'SELECT $1, $2, $1', 2];
        yield 'named with cast' => ['SELECT :id::int', 'SELECT $1::int', 1];
        yield 'cast is not named' => ['SELECT x::text FROM t WHERE y = :y', 'SELECT x::text FROM t WHERE y = $1', 1];
        yield 'array slice is not named' => ['SELECT arr[1:n], arr[lo:hi] FROM t WHERE id = :id', 'SELECT arr[1:n], arr[lo:hi] FROM t WHERE id = $1', 1];
        yield 'colon-equals' => ['SELECT f(a := :v)', 'SELECT f(a := $1)', 1];
        yield 'digit after colon is no name' => ["SELECT '10:30'::time, :t", "SELECT '10:30'::time, \$1", 1];
        yield 'unicode names' => ['SELECT :prénom', 'SELECT $1', 1];
        yield 'unterminated string' => ["SELECT 'abc ?", "SELECT 'abc ?", 0];
        yield 'unterminated comment' => ['SELECT 1 /* ?', 'SELECT 1 /* ?', 0];
        yield 'unterminated dollar quote' => ['SELECT $q$ ?', 'SELECT $q$ ?', 0];
        yield 'placeholder at the very end' => ['SELECT ?', 'SELECT $1', 1];
        yield 'multi-byte text around' => ["SELECT 'é', ?, '🙂'", "SELECT 'é', \$1, '🙂'", 1];
    }

    #[DataProvider('conversions')]
    public function testConversion(string $sql, string $expected, int $count): void
    {
        $parsed = Placeholders::convert($sql);
        self::assertSame($expected, $parsed->sql);
        self::assertSame($count, $parsed->count);
    }

    public function testNamedKeepsOrderOfFirstAppearance(): void
    {
        $parsed = Placeholders::convert('SELECT :b, :a, :b');
        self::assertSame(['b', 'a'], $parsed->names);
        self::assertSame([2, 1], $parsed->bind(['a' => 1, 'b' => 2]));
        self::assertSame([2, 1], $parsed->bind([':a' => 1, ':b' => 2]));
    }

    public function testPositionalBinding(): void
    {
        $parsed = Placeholders::convert('SELECT ?, ?, ?, ?');
        self::assertNull($parsed->names);
        self::assertSame([1, 'x', null, 't'], $parsed->bind([1, 'x', null, true]));
    }

    /** @return iterable<string, array{string}> */
    public static function mixed(): iterable
    {
        yield '? and :name' => ['SELECT ?, :a'];
        yield ':name and ?' => ['SELECT :a, ?'];
        yield '? and $n' => ['SELECT ?, $1'];
        yield ':name and $n' => ['SELECT :a, $1'];
    }

    #[DataProvider('mixed')]
    public function testMixingStylesIsAnError(string $sql): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('mixes');
        Placeholders::convert($sql);
    }

    public function testMissingPositionalParameter(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('2 placeholder(s) but 1 parameter(s)');
        Placeholders::convert('SELECT ?, ?')->bind([1]);
    }

    public function testExtraPositionalParameter(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('1 placeholder(s) but 2 parameter(s)');
        Placeholders::convert('SELECT ?')->bind([1, 2]);
    }

    public function testParametersForSqlWithoutPlaceholders(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('0 placeholder(s) but 1 parameter(s)');
        Placeholders::convert("SELECT '?'")->bind([1]);
    }

    public function testNativePlaceholdersWithoutParametersPassThrough(): void
    {
        $parsed = Placeholders::convert('PREPARE p (int) AS SELECT $1 + 1');
        self::assertSame([], $parsed->bind([]), 'the $1 belongs to the PREPARE');
        self::assertSame(['5'], Placeholders::convert('SELECT $1::int')->bind(['5']));
        $this->expectException(DatabaseError::class);
        Placeholders::convert('SELECT $1, $2')->bind([1]);
    }

    public function testPlaceholdersWithoutParameters(): void
    {
        $this->expectException(DatabaseError::class);
        Placeholders::convert('SELECT ?')->bind([]);
    }

    public function testPositionalNeedsAList(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('bind a list');
        Placeholders::convert('SELECT ?')->bind(['a' => 1]);
    }

    public function testMissingNamedParameter(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('Missing parameter :b');
        Placeholders::convert('SELECT :a, :b')->bind(['a' => 1]);
    }

    public function testExtraNamedParameter(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage(':c match no placeholder');
        Placeholders::convert('SELECT :a')->bind(['a' => 1, 'c' => 2]);
    }

    public function testNamedGivenAsAList(): void
    {
        $this->expectException(DatabaseError::class);
        Placeholders::convert('SELECT :a')->bind([1]);
    }

    public function testParseIsMemoised(): void
    {
        $sql = 'SELECT ? /* memo ' . \bin2hex(\random_bytes(4)) . ' */';
        self::assertSame(Placeholders::parse($sql), Placeholders::parse($sql));
    }

    public function testCacheStaysBounded(): void
    {
        for ($i = 0; $i < 1200; $i++) {
            Placeholders::parse("SELECT {$i}, ?");
        }
        $cache = (new \ReflectionClass(Placeholders::class))->getStaticPropertyValue('cache');
        self::assertIsArray($cache);
        self::assertLessThanOrEqual(512, \count($cache));
        self::assertSame('SELECT 1199, $1', Placeholders::parse('SELECT 1199, ?')->sql);
    }

    /** @return iterable<string, array{string, bool}> */
    public static function preparable(): iterable
    {
        yield 'select' => ['SELECT 1', true];
        yield 'lower case with parentheses' => ['(select 1) union (select 2)', true];
        yield 'dml' => ['insert into t values (?)', true];
        yield 'cte' => ['WITH x AS (SELECT 1) SELECT * FROM x', true];
        yield 'trailing semicolon and comment' => ["SELECT 1; -- done\n", true];
        yield 'semicolon in a string' => ["SELECT ';' AS s", true];
        yield 'two statements' => ['SELECT 1; SELECT 2', false];
        yield 'statement after a comment' => ["SELECT 1; /* x */ DELETE FROM t", false];
        yield 'utility' => ['SET x = 1', false];
        yield 'transaction control' => ['BEGIN', false];
        yield 'leading comment' => ['/* c */ SELECT 1', false];
    }

    #[DataProvider('preparable')]
    public function testPreparableStatements(string $sql, bool $preparable): void
    {
        self::assertSame($preparable, Placeholders::convert($sql)->preparable);
    }
}
