<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Coroutine\TimeoutException;
use Petrel\Database\ConnectionException;
use Petrel\Database\Mysql\Internal\QueryKiller;
use Petrel\Database\Mysql\MysqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

/** Deadlines mid-query, killed connections, a restarted server. */
#[CoversClass(MysqlConnection::class)]
#[CoversClass(QueryKiller::class)]
final class FailureTest extends MysqlTestCase
{
    public function testATimeoutMidQueryClosesTheConnectionAndKillsTheQuery(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $marker = 'petrel_timeout_' . \bin2hex(\random_bytes(4));
            $started = \hrtime(true);
            try {
                timeout(0.1, static fn () => $db->query("SELECT SLEEP(5) AS `{$marker}`"));
                self::fail('the deadline must interrupt the query');
            } catch (TimeoutException $e) {
                self::assertSame('Timed out after 0.1 s', $e->getMessage());
            }
            self::assertLessThan(0.5, (\hrtime(true) - $started) / 1e9);
            self::assertFalse($db->isUsable(), 'the protocol is out of step: the connection is closed');
            try {
                $db->query('SELECT 1');
                self::fail('an interrupted connection cannot be used again');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('is unusable: a command was interrupted (Timed out after 0.1 s)', $e->getMessage());
            }

            // KILL QUERY went out from a connection of its own: the server stops the SLEEP.
            $killer = $db->killer();
            self::assertNotNull($killer);
            $killer->join();
            $fresh = $this->connect();
            self::assertSame([['n' => 1]], $fresh->query('SELECT 1 AS n'));
            $this->waitUntilGone($fresh, $marker, 2.0);
            self::assertLessThan(3.0, (\hrtime(true) - $started) / 1e9, 'stopped long before SLEEP(5) would end');
        });
    }

    public function testWithoutKillOnCancelTheQueryRunsOnInTheServer(): void
    {
        $this->async(function (): void {
            $db = $this->connect(self::config(['kill_on_cancel' => '0']));
            $marker = 'petrel_runs_on_' . \bin2hex(\random_bytes(4));
            try {
                timeout(0.1, static fn () => $db->query("SELECT SLEEP(5) AS `{$marker}`"));
                self::fail('the deadline must interrupt the query');
            } catch (TimeoutException) {
            }
            self::assertNull($db->killer());
            $other = $this->connect();
            $threads = self::runningThreads($other, $marker);
            self::assertSame([$db->connectionId()], $threads, 'closing the socket alone does not stop a SLEEP');
            $other->execute("KILL QUERY {$db->connectionId()}"); // clean up
            $this->waitUntilGone($other, $marker, 2.0);
        });
    }

    /**
     * A deadline around transaction() that expires while its closure waits cuts the ROLLBACK
     * short as well. Nothing runs on the server for KILL QUERY to stop (a ROLLBACK cannot be
     * stopped, and a closed connection's transaction is rolled back anyway): no connection
     * is opened for one.
     */
    public function testARollbackCutShortByTheDeadlineSendsNoKillQuery(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            try {
                timeout(0.1, static fn () => $db->transaction(static function (MysqlConnection $c): void {
                    $c->query('SELECT 1');
                    sleep(5);
                }));
                self::fail('the deadline must end the transaction');
            } catch (TimeoutException) {
            }
            self::assertFalse($db->isUsable(), 'the ROLLBACK was cut short: the connection is closed');
            self::assertNull($db->killer());
        });
    }

    public function testAConnectionKilledMidQueryThrowsConnectionException(): void
    {
        $this->async(function (): void {
            $victim = $this->connect();
            $admin = $this->connect();
            $marker = 'petrel_victim_' . \bin2hex(\random_bytes(4));
            $query = go(static fn () => $victim->query("SELECT SLEEP(5) AS `{$marker}`"));
            $this->waitUntilRunning($admin, $marker);
            $admin->execute("KILL CONNECTION {$victim->connectionId()}");
            try {
                $query->join();
                self::fail('a killed connection must fail');
            } catch (ConnectionException $e) {
                self::assertStringStartsWith('Lost connection to MySQL at ' . self::config()->where() . ': ', $e->getMessage());
            }
            self::assertFalse($victim->isUsable());
            $this->expectException(ConnectionException::class);
            $victim->ping();
        });
    }

    /**
     * A command above max_allowed_packet gets 1153 (SQLSTATE 08S01) and the server hangs
     * up: a ConnectionException at once, telling of the transaction, not a QueryException
     * ("the connection stays usable") followed by a broken pipe on the next call.
     */
    public function testACommandAboveMaxAllowedPacketLosesTheConnectionAndSaysSo(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $limit = (int) $db->query('SELECT @@max_allowed_packet AS n')[0]['n'];
            if ($limit > 64 << 20) {
                self::markTestSkipped("max_allowed_packet is {$limit} bytes here");
            }
            $db->beginTransaction();
            try {
                $db->query('SELECT LENGTH(?) AS n', [\str_repeat('z', $limit + 1024)]);
                self::fail('the server refuses a packet above its limit');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('(1153, SQLSTATE 08S01)', $e->getMessage());
                self::assertTrue($e->transactionLost, $e->getMessage());
            }
            self::assertFalse($db->isUsable());
        }, 30.0);
    }

    public function testAnIdleConnectionKilledByTheServerIsNoLongerUsable(): void
    {
        $this->async(function (): void {
            $idle = $this->connect();
            $admin = $this->connect();
            self::assertTrue($idle->isUsable());
            $admin->execute("KILL {$idle->connectionId()}");
            $deadline = \hrtime(true) + 2_000_000_000;
            while ($idle->isUsable() && \hrtime(true) < $deadline) {
                sleep(0.005); // the server closes the socket right after KILL answers
            }
            self::assertFalse($idle->isUsable(), 'isUsable() notices the closed socket without a round trip');
            try {
                $idle->query('SELECT 1');
                self::fail('a closed connection must fail');
            } catch (ConnectionException $e) {
                self::assertSame('Lost connection to MySQL at ' . self::config()->where() . ': the server closed the connection', $e->getMessage());
            }
        });
    }

    public function testAServerRestartBreaksConnectionsAndFreshOnesWork(): void
    {
        $script = \getenv('PETREL_SERVICES_SCRIPT');
        if (!\is_string($script) || $script === '' || !\is_executable($script)) {
            self::markTestSkipped('restarts MariaDB through .ci/services.sh: set PETREL_SERVICES_SCRIPT');
        }
        $this->async(function () use ($script): void {
            $idle = $this->connect();
            $busy = $this->connect();
            $query = go(static fn () => $busy->query('SELECT SLEEP(30)'));
            // In the background, so that the query is in flight while the server goes down;
            // descriptors above 2 are closed first, or the new mariadbd would inherit them
            // (PHPUnit's output pipe, for one) and hold them open for its lifetime.
            $restart = \proc_open(
                ['bash', '-c', 'for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$1" restart mariadb', 'bash', $script],
                [['file', '/dev/null', 'r'], ['file', '/dev/null', 'w'], ['file', '/dev/null', 'w']],
                $pipes,
            );
            self::assertNotFalse($restart);
            try {
                $query->join();
                self::fail('the query in flight must fail when the server goes down');
            } catch (ConnectionException $e) {
                self::assertStringStartsWith('Lost connection to MySQL at ', $e->getMessage());
            }
            while (($status = \proc_get_status($restart))['running']) {
                sleep(0.05);
            }
            \proc_close($restart);
            self::assertSame(0, $status['exitcode'], 'services.sh restart mariadb failed');
            self::assertFalse($idle->isUsable());
            self::assertFalse($busy->isUsable());
            try {
                $idle->query('SELECT 1');
                self::fail('a connection to the old server process must fail');
            } catch (ConnectionException) {
            }
            self::assertSame([['n' => 1]], $this->connect()->query('SELECT ? AS n', [1]));
        }, 90.0);
    }

    private function waitUntilRunning(MysqlConnection $db, string $marker): void
    {
        $deadline = \hrtime(true) + 2_000_000_000;
        while (self::runningThreads($db, $marker) === []) {
            self::assertLessThan($deadline, \hrtime(true), "no statement with {$marker} showed up");
            sleep(0.005);
        }
    }

    private function waitUntilGone(MysqlConnection $db, string $marker, float $seconds): void
    {
        $deadline = \hrtime(true) + (int) ($seconds * 1e9);
        while (self::runningThreads($db, $marker) !== []) {
            self::assertLessThan($deadline, \hrtime(true), "the statement with {$marker} still runs after {$seconds} s");
            sleep(0.01);
        }
    }
}
