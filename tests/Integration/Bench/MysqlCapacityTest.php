<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Bench;

use Petrel\Bench\Machine;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Tests\Integration\Database\Mysql\MysqlTestCase;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(Machine::class)]
final class MysqlCapacityTest extends MysqlTestCase
{
    public function testMaxConnectionsIsAskedOfTheServerAndNullWhenItCannotBe(): void
    {
        $url = (string) \getenv('MYSQL_URL');
        $expected = $this->async(static function (): int {
            $db = MysqlConnection::connect(self::config());
            try {
                $row = $db->query('SHOW VARIABLES LIKE \'max_connections\'')[0] ?? [];

                return (int) ($row['Value'] ?? 0);
            } finally {
                $db->close();
            }
        });

        self::assertGreaterThan(0, $expected);
        self::assertSame($expected, Machine::mysqlMaxConnections($url));
        self::assertNull(Machine::mysqlMaxConnections('mysql://nobody:wrong@127.0.0.1:1/none'));
    }
}
