<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database;

use Petrel\Database\Database;
use Petrel\Database\QueryException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RequiresServices;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * One rule for QueryException's codes on every driver: getSqlState() is the portable
 * SQLSTATE, getCode() the database's own code (getDriverCode()).
 */
#[CoversClass(QueryException::class)]
final class ErrorCodeTest extends AsyncTestCase
{
    use RequiresServices;

    /** @return iterable<string, array{string, string, string, int|string}> */
    public static function drivers(): iterable
    {
        // variable, default URL, duplicate-key SQLSTATE, driver code
        yield 'mysql' => ['MYSQL_URL', '', '23000', 1062];
        yield 'pgsql' => ['PGSQL_URL', '', '23505', '23505'];
        yield 'sqlite' => ['', 'sqlite::memory:', '23000', 19];
    }

    #[DataProvider('drivers')]
    public function testADuplicateKeyHasTheSameKindOfCodesEverywhere(string $variable, string $url, string $sqlState, int|string $code): void
    {
        if ($variable !== '') {
            $url = (string) \getenv($variable);
            if ($url === '') {
                self::skipUnlessRequired("{$variable} is not set");
            }
        }
        $table = 'petrel_codes_' . \bin2hex(\random_bytes(4));
        $this->async(function () use ($url, $table, $sqlState, $code): void {
            $db = Database::fromUrl($url);
            try {
                $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
                $db->execute("INSERT INTO {$table} VALUES (1)");
                try {
                    $db->execute("INSERT INTO {$table} VALUES (?)", [1]);
                    self::fail('the duplicate key was accepted');
                } catch (QueryException $e) {
                    self::assertSame($sqlState, $e->getSqlState());
                    self::assertSame($code, $e->getDriverCode());
                    self::assertSame($code, $e->getCode());
                }
            } finally {
                $db->execute("DROP TABLE IF EXISTS {$table}");
                $db->close();
            }
        });
    }
}
