<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Internal\Cursor;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Database\QueryException;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(PgsqlConnection::class)]
#[CoversClass(Cursor::class)]
final class StreamTest extends PgsqlTestCase
{
    public function testStreamsAHundredThousandRowsInBoundedMemory(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $sql = "SELECT g AS id, repeat('x', 200) AS pad FROM generate_series(1, 100000) g";
            \gc_collect_cycles();
            $before = \memory_get_usage();
            \memory_reset_peak_usage();
            $count = 0;
            $sum = 0;
            $keysInOrder = true;
            foreach ($db->stream($sql) as $key => $row) {
                $keysInOrder = $keysInOrder && $key === $count;
                $count++;
                $sum += $row['id'];
            }
            $peak = \memory_get_peak_usage() - $before;
            self::assertSame(100000, $count);
            self::assertTrue($keysInOrder, 'keys run 0, 1, 2… across batches');
            self::assertSame(5000050000, $sum);
            self::assertLessThan(8 << 20, $peak, 'peak memory while streaming: ' . \round($peak / 1048576, 1) . ' MiB');
            self::assertFalse($db->inTransaction());
            self::assertTrue($db->isUsable());
            self::assertSame([['n' => 0]], $db->query('SELECT count(*)::int AS n FROM pg_cursors'));

            // the same through query() holds everything at once: the point of stream()
            \memory_reset_peak_usage();
            $before = \memory_get_usage();
            $all = $db->query($sql);
            self::assertCount(100000, $all);
            self::assertGreaterThan(4 * $peak, \memory_get_peak_usage() - $before);
        });
    }

    public function testAbandoningEarlyClosesTheCursorAndTheTransaction(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            foreach ($db->stream('SELECT g FROM generate_series(1, 100000) g') as $row) {
                if ($row['g'] === 1500) {
                    break; // the generator is destroyed here: cleanup is sent, its reply read later
                }
            }
            self::assertFalse($db->inTransaction());
            self::assertTrue($db->isUsable());
            self::assertSame([['n' => 0]], $db->query('SELECT count(*)::int AS n FROM pg_cursors'));

            $rows = $db->stream('SELECT g FROM generate_series(1, 10) g WHERE g > ?', [5]);
            foreach ($rows as $row) {
                self::assertSame(6, $row['g']);
                break;
            }
            unset($rows);
            self::assertSame([['g' => 7]], $db->query('SELECT 7 AS g'));
            self::assertFalse($db->inTransaction());
        });
    }

    public function testAbandoningByAnExceptionInTheLoop(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            try {
                foreach ($db->stream('SELECT g FROM generate_series(1, 5000) g') as $row) {
                    throw new \RuntimeException('stop at ' . $row['g']);
                }
            } catch (\RuntimeException $e) {
                self::assertSame('stop at 1', $e->getMessage());
            }
            self::assertFalse($db->inTransaction());
            self::assertSame([['ok' => true]], $db->query('SELECT true AS ok'));
        });
    }

    public function testStreamInsideTheCallersTransaction(): void
    {
        $table = $this->table('stx');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (v int)");
            $db->beginTransaction();
            $db->execute("INSERT INTO {$table} SELECT g FROM generate_series(1, 2500) g");
            $seen = 0;
            foreach ($db->stream("SELECT v FROM {$table} WHERE v > :min ORDER BY v", ['min' => 0]) as $row) {
                $seen++;
            }
            self::assertSame(2500, $seen, 'the stream sees the uncommitted rows of its transaction');
            foreach ($db->stream("SELECT v FROM {$table}") as $row) {
                break;
            }
            self::assertTrue($db->inTransaction());
            self::assertSame([['n' => 0]], $db->query('SELECT count(*)::int AS n FROM pg_cursors'));
            $db->rollBack();
            self::assertSame([['n' => 0]], $db->query("SELECT count(*)::int AS n FROM {$table}"));
        });
    }

    public function testExactMultipleOfTheBatchAndEmptyResults(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            self::assertCount(2 * Cursor::BATCH, \iterator_to_array($db->stream('SELECT g FROM generate_series(1, ?::int) g;', [2 * Cursor::BATCH])));
            self::assertSame([], \iterator_to_array($db->stream('SELECT 1 WHERE false')));
            self::assertSame([['column1' => 1]], \iterator_to_array($db->stream('VALUES (1) -- trailing comment')));
            self::assertFalse($db->inTransaction());
        });
    }

    public function testErrorsSurfaceAndLeaveTheConnectionUsable(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            try {
                foreach ($db->stream('SELECT 1 / (g - 1500) FROM generate_series(1, 3000) g') as $row) {
                }
                self::fail('division by zero streamed');
            } catch (QueryException $e) {
                self::assertSame('22012', $e->getSqlState());
            }
            try {
                foreach ($db->stream('SELEC 1') as $row) {
                }
                self::fail('syntax error streamed');
            } catch (QueryException $e) {
                self::assertSame('42601', $e->getSqlState());
            }
            self::assertFalse($db->inTransaction());
            self::assertTrue($db->isUsable());
            self::assertSame([['one' => 1]], $db->query('SELECT 1 AS one'));
        });
    }

    public function testConnectionIsBusyWhileStreaming(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $rows = $db->stream('SELECT g FROM generate_series(1, 10) g');
            foreach ($rows as $row) {
                try {
                    $db->query('SELECT 1');
                    self::fail('query during a stream accepted');
                } catch (DatabaseError $e) {
                    self::assertStringContainsString('stream()', $e->getMessage());
                }
                self::assertFalse($db->isUsable());
                break;
            }
            unset($rows);
            self::assertTrue($db->isUsable());
        });
    }
}
