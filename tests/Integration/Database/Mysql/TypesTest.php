<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\Mysql\MysqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

/**
 * Every common column type, written with bound parameters and read back through both
 * protocols: COM_QUERY (text rows, no parameters) and COM_STMT_EXECUTE (binary rows), which
 * must give identical PHP values.
 */
#[CoversClass(MysqlConnection::class)]
final class TypesTest extends MysqlTestCase
{
    private const COLUMNS = <<<'SQL'
        id INT PRIMARY KEY,
        i INT, bi BIGINT, bu BIGINT UNSIGNED, bu_small BIGINT UNSIGNED, ti TINYINT, flag BOOL,
        si SMALLINT, mi MEDIUMINT, iu INT UNSIGNED,
        dec1 DECIMAL(20,6), f FLOAT, d DOUBLE,
        vc VARCHAR(100) CHARACTER SET utf8mb4, txt TEXT, bl BLOB, vb VARBINARY(50),
        dt DATE, dtt DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME, yr YEAR,
        js JSON, en ENUM('a','b'), bits BIT(8), nothing INT NULL
        SQL;

    /** @return array<string, mixed> the values to write, by column */
    private static function values(): array
    {
        return [
            'i' => -2147483648,
            'bi' => \PHP_INT_MIN,
            'bu' => '18446744073709551615',
            'bu_small' => 5,
            'ti' => -128,
            'flag' => true,
            'si' => -32768,
            'mi' => -8388608,
            'iu' => 4294967295,
            'dec1' => '12345678901234.123456',
            'f' => 1.1,
            'd' => 3.141592653589793,
            'vc' => "h\u{e9}llo \u{1F418} w\u{f6}rld",
            'txt' => \str_repeat('long text ', 2000),
            'bl' => "\x00\x01\xFF\x00binary\x00",
            'vb' => "\x00'\"\\",
            'dt' => '2024-02-29',
            'dtt' => new \DateTimeImmutable('2024-02-29 13:14:15.123456'),
            'ts' => '2024-02-29 13:14:15.123',
            'tm' => '-25:30:00',
            'yr' => 2024,
            'js' => '{"a": [1, 2.5, "x"]}',
            'en' => 'b',
            'bits' => "\xA5",
            'nothing' => null,
        ];
    }

    /** @return array<string, mixed> what reading them back gives */
    private static function expected(int $id): array
    {
        return ['id' => $id] + \array_replace(self::values(), [
            'flag' => 1, // BOOL is TINYINT(1)
            'bits' => 0xA5, // BIT reads back as an integer
            'dtt' => '2024-02-29 13:14:15.123456',
        ]);
    }

    public function testEveryCommonTypeRoundTripsThroughBothProtocols(): void
    {
        $table = $this->table('types');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (" . self::COLUMNS . ')');
            $columns = \array_keys(self::values());
            $insert = \sprintf(
                'INSERT INTO %s (id, %s) VALUES (?, %s)',
                $table,
                \implode(', ', $columns),
                \implode(', ', \array_fill(0, \count($columns), '?')),
            );
            $db->execute($insert, [1, ...\array_values(self::values())]);
            $db->execute("INSERT INTO {$table} SELECT 2, " . \implode(', ', $columns) . " FROM {$table} WHERE id = 1");

            $text = $db->query("SELECT * FROM {$table} ORDER BY id");
            $binary = $db->query("SELECT * FROM {$table} WHERE id >= ? ORDER BY id", [1]);
            $expected = [self::expected(1), self::expected(2)];
            self::assertSame($expected, $text, 'text protocol (COM_QUERY)');
            self::assertSame($expected, $binary, 'binary protocol (COM_STMT_EXECUTE)');
        });
    }

    public function testExpressionsAndNullsKeepTheirTypes(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $sql = 'SELECT 1 AS one, -1 AS neg, 2.50 AS dec2, 1e3 AS dbl, NULL AS nil, \'x\' AS s, '
                . 'CAST(18446744073709551615 AS UNSIGNED) AS umax, 9223372036854775807 AS imax, '
                . 'TRUE AS t, DATE(\'2001-02-03\') AS d, CAST(\'10:11:12.5\' AS TIME(1)) AS tm';
            $expected = [
                'one' => 1, 'neg' => -1, 'dec2' => '2.50', 'dbl' => 1000.0, 'nil' => null, 's' => 'x',
                'umax' => '18446744073709551615', 'imax' => \PHP_INT_MAX, 't' => 1, 'd' => '2001-02-03',
                'tm' => '10:11:12.5',
            ];
            self::assertSame([$expected], $db->query($sql));
            self::assertSame([$expected], $db->query($sql . ' FROM DUAL WHERE ? = 1', [1]));
        });
    }

    /** BIT(n) reads back as an int (b'0' is 0, falsy), as decimal digits above PHP_INT_MAX. */
    public function testBitColumnsAreIntegersInBothProtocols(): void
    {
        $table = $this->table('bits');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY, b1 BIT(1), b7 BIT(7), b17 BIT(17), b64 BIT(64))");
            $db->execute("INSERT INTO {$table} VALUES (1, b'0', b'0000101', b'10000000000000001', b'0')");
            $db->execute("INSERT INTO {$table} VALUES (2, b'1', b'1111111', 0, 18446744073709551615)");
            $db->execute("INSERT INTO {$table} VALUES (3, ?, ?, ?, ?)", [1, 127, 65537, \PHP_INT_MAX]);
            $db->execute("INSERT INTO {$table} VALUES (4, NULL, NULL, NULL, 9223372036854775808)");
            $expected = [
                ['id' => 1, 'b1' => 0, 'b7' => 5, 'b17' => 65537, 'b64' => 0],
                ['id' => 2, 'b1' => 1, 'b7' => 127, 'b17' => 0, 'b64' => '18446744073709551615'],
                ['id' => 3, 'b1' => 1, 'b7' => 127, 'b17' => 65537, 'b64' => \PHP_INT_MAX],
                ['id' => 4, 'b1' => null, 'b7' => null, 'b17' => null, 'b64' => '9223372036854775808'],
            ];
            self::assertSame($expected, $db->query("SELECT * FROM {$table} ORDER BY id"), 'text protocol');
            self::assertSame($expected, $db->query("SELECT * FROM {$table} WHERE id > ? ORDER BY id", [0]), 'binary protocol');
            self::assertSame(0, $db->query("SELECT b1 FROM {$table} WHERE id = 1")[0]['b1']);
        });
    }

    public function testLargeValuesSpanManyReads(): void
    {
        $table = $this->table('large');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY, b LONGBLOB)");
            $blob = \random_bytes(3_000_000);
            $db->execute("INSERT INTO {$table} VALUES (1, ?)", [$blob]);
            self::assertSame($blob, $db->query("SELECT b FROM {$table}")[0]['b']);
            self::assertSame($blob, $db->query("SELECT b FROM {$table} WHERE id = ?", [1])[0]['b']);
            self::assertSame([['n' => 3_000_000]], $db->query("SELECT LENGTH(b) AS n FROM {$table}"));
        });
    }
}
