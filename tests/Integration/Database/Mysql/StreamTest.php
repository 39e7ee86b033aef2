<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;

#[CoversClass(MysqlConnection::class)]
final class StreamTest extends MysqlTestCase
{
    private const ROWS = 'SELECT seq, CONCAT(\'row-\', seq) AS label FROM seq_1_to_100000';

    public function testStreamsAHundredThousandRowsInBoundedMemory(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            foreach ([[self::ROWS, []], [self::ROWS . ' WHERE seq >= ?', [1]]] as [$sql, $params]) {
                $base = \memory_get_usage();
                $peak = 0;
                $count = 0;
                $sum = 0;
                foreach ($db->stream($sql, $params) as $i => $row) {
                    self::assertSame($count, $i);
                    $count++;
                    $sum += $row['seq'];
                    if ($count % 5000 === 0) {
                        self::assertSame("row-{$count}", $row['label']);
                        $peak = \max($peak, \memory_get_usage() - $base);
                    }
                }
                self::assertSame(100_000, $count);
                self::assertSame(5_000_050_000, $sum);
                self::assertLessThan(2 * 1024 * 1024, $peak, 'memory grew by ' . $peak . ' bytes while streaming');
                self::assertTrue($db->isUsable());
            }
        });
    }

    public function testAbandoningAStreamEarlyLeavesTheConnectionUsable(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            foreach ([[self::ROWS, []], [self::ROWS . ' WHERE seq >= ?', [1]]] as [$sql, $params]) {
                foreach ($db->stream($sql, $params) as $row) {
                    if ($row['seq'] === 10) {
                        break; // the generator is destroyed here: it reads past the other 99,990 rows
                    }
                }
                self::assertTrue($db->isUsable());
                self::assertSame([['n' => 42]], $db->query('SELECT 42 AS n'));

                $stream = $db->stream($sql, $params);
                self::assertSame(1, $stream->current()['seq']);
                unset($stream);
                self::assertSame([['n' => 43]], $db->query('SELECT ? AS n', [43]));
            }
            $never = $db->stream(self::ROWS); // not iterated: holds nothing
            self::assertTrue($db->isUsable());
            unset($never);
        });
    }

    public function testTheRestOfAnAbandonedSlowResultIsSkippedBeforeTheNextCommand(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            // 20 KB rows, one every 10 ms: the server flushes each, so they trickle in.
            $sql = "SELECT seq, REPEAT('x', 20000) AS pad FROM seq_1_to_30 WHERE SLEEP(0.01) = 0";
            foreach ($db->stream($sql) as $row) {
                self::assertSame(1, $row['seq']);
                break; // the destructor cannot wait for the other rows (PHP 8.2: no fiber switch there)
            }
            self::assertTrue($db->isUsable(), 'abandoned, not busy');
            self::assertSame([['n' => 7]], $db->query('SELECT ? AS n', [7]), 'skips the rest, then runs');
            self::assertSame([['n' => 30]], $db->query('SELECT COUNT(*) AS n FROM seq_1_to_30'));
            self::assertTrue($db->isUsable());
        });
    }

    public function testTheConnectionIsBusyWhileAStreamIsIterated(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $stream = $db->stream(self::ROWS);
            $stream->current();
            self::assertFalse($db->isUsable());
            try {
                $db->query('SELECT 1');
                self::fail('the same coroutine cannot query while iterating');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('this coroutine is iterating a stream()', $e->getMessage());
            }
            $other = go(static function () use ($db): string {
                try {
                    $db->query('SELECT 1');

                    return 'no error';
                } catch (DatabaseError $e) {
                    return $e->getMessage();
                }
            });
            self::assertMatchesRegularExpression('/^MySQL connection already in use by coroutine #\d+ \(iterating a stream\(\)\); use a Pool$/', $other->join());
            $count = 0;
            foreach ($stream as $row) {
                $count++;
            }
            self::assertSame(100_000, $count);
            self::assertTrue($db->isUsable());
        });
    }

    public function testAServerErrorSurfacesOnTheFirstIteration(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            foreach ([['SELEKT 1', []], ['SELECT * FROM petrel_no_such_table WHERE id = ?', [1]]] as [$sql, $params]) {
                try {
                    foreach ($db->stream($sql, $params) as $row) {
                        self::fail('no rows expected');
                    }
                    self::fail('the error must surface');
                } catch (QueryException $e) {
                    self::assertSame($sql, $e->getSql());
                }
                self::assertTrue($db->isUsable());
            }
            // An error after some rows (division by zero in strict mode is a warning; use a cast overflow).
            $rows = [];
            try {
                foreach ($db->stream("SELECT IF(seq < 3, seq, (SELECT seq FROM seq_1_to_2)) AS v FROM seq_1_to_5") as $row) {
                    $rows[] = $row['v'];
                }
                self::fail('a subquery returning two rows must fail');
            } catch (QueryException $e) {
                self::assertSame(1242, $e->getDriverCode());
            }
            self::assertSame([1, 2], $rows);
            self::assertSame([['ok' => 1]], $db->query('SELECT 1 AS ok'));
        });
    }
}
