<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\MysqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\parallel;

#[CoversClass(MysqlConnection::class)]
final class ConcurrencyTest extends MysqlTestCase
{
    public function testASecondCoroutineCannotUseABusyConnection(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $first = go(static fn () => $db->query('SELECT SLEEP(0.2) AS s, 1 AS n'));
            $second = go(static function () use ($db): string {
                try {
                    $db->query('SELECT 2');

                    return 'no error';
                } catch (DatabaseError $e) {
                    return $e->getMessage();
                }
            });
            self::assertSame("MySQL connection already in use by coroutine #{$first->id}; use a Pool", $second->join());
            self::assertSame([['s' => 0, 'n' => 1]], $first->join());
            self::assertTrue($db->isUsable(), 'the refused call did not disturb the one in flight');
            self::assertSame([['n' => 3]], $db->query('SELECT 3 AS n'));
        });
    }

    public function testFiftyConnectionsSleepConcurrently(): void
    {
        $this->async(function (): void {
            $connections = [];
            $tasks = [];
            for ($i = 0; $i < 50; $i++) {
                $tasks[$i] = function () use ($i, &$connections): array {
                    $connections[$i] = $db = MysqlConnection::connect(self::config());

                    return $db->query('SELECT SLEEP(0.1) AS s, ? AS i', [$i]);
                };
            }
            $started = \hrtime(true);
            $results = parallel($tasks);
            $elapsed = (\hrtime(true) - $started) / 1e9;
            foreach ($results as $i => $rows) {
                self::assertSame([['s' => 0, 'i' => $i]], $rows);
            }
            foreach ($connections as $db) {
                $db->close();
            }
            // One after the other would take 5 s: the waits overlap.
            self::assertLessThan(2.0, $elapsed, "50 x SLEEP(0.1) took {$elapsed} s");
        }, 20.0);
    }
}
