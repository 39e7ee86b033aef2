<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Coroutine\TimeoutException;
use Petrel\Database\Connection;
use Petrel\Database\Database;
use Petrel\Database\Mysql\MysqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\sleep;
use function Petrel\timeout;

/**
 * A deadline around transaction() (`timeout(2, fn () => $db->transaction(…))`, the usual
 * way to bound a unit of work) that expires inside it: the caller gets the TimeoutException
 * from transaction(), so it knows nothing was committed. The coroutine's next unit of work
 * (a consumer's next message) must then run on a fresh connection, not fail with a
 * ConnectionException claiming a transaction was lost: that was the one just reported.
 */
#[CoversClass(MysqlConnection::class)]
final class TransactionDeadlineTest extends MysqlTestCase
{
    public function testADeadlineThatEndsTransactionWhileItsClosureWaitsLeavesTheNextQueryWorking(): void
    {
        $this->assertTheNextQueryWorksAfterADeadlineEndsTheTransaction(static fn () => sleep(5));
    }

    public function testADeadlineThatCutsAQueryInTransactionShortLeavesTheNextQueryWorking(): void
    {
        $this->assertTheNextQueryWorksAfterADeadlineEndsTheTransaction(static fn (MysqlConnection $c) => $c->query('SELECT SLEEP(5)'));
    }

    /** @param \Closure(MysqlConnection): mixed $slowStep */
    private function assertTheNextQueryWorksAfterADeadlineEndsTheTransaction(\Closure $slowStep): void
    {
        $table = $this->table('deadline');
        $this->async(function () use ($table, $slowStep): void {
            $db = new Database(self::config());
            $db->execute("CREATE TABLE {$table} (id INT PRIMARY KEY)");
            try {
                timeout(0.3, static fn () => $db->transaction(static function (Connection $c) use ($table, $slowStep): void {
                    \assert($c instanceof MysqlConnection);
                    $c->execute("INSERT INTO {$table} VALUES (1)");
                    $slowStep($c);
                }));
                self::fail('the deadline must end the transaction');
            } catch (TimeoutException) {
                // the caller's way of learning the transaction did not commit
            }

            self::assertSame(0, $db->scalar("SELECT COUNT(*) FROM {$table}"), 'the next query works, and nothing was committed');
            self::assertSame(1, $db->pool()->stats()['size'], 'the broken connection was replaced, not kept');
            $db->close();
        }, 30.0);
    }
}
