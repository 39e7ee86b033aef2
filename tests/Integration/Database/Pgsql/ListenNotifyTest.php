<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Coroutine\TimeoutException;
use Petrel\Database\Database;
use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\PgsqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

/**
 * LISTEN/NOTIFY as a coroutine subscription, delivered across two connections; COPY to or
 * from the client refused with the connection left usable.
 */
#[CoversClass(PgsqlConnection::class)]
final class ListenNotifyTest extends PgsqlTestCase
{
    public function testNotificationsFromAnotherConnectionReachTheListener(): void
    {
        $this->async(function (): void {
            $listener = $this->connect();
            $notifier = $this->connect();
            $pid = (int) $listener->query('SELECT pg_backend_pid() AS p')[0]['p'];
            $received = [];
            $listening = go(static function () use ($listener, &$received): void {
                $listener->listen(['jobs', 'Mixed Case'], static function (string $channel, string $payload, int $from) use (&$received): bool {
                    $received[] = [$channel, $payload, $from];

                    return $payload !== 'last';
                });
            });
            self::waitUntilListening($notifier, $pid);
            $notifierPid = (int) $notifier->query('SELECT pg_backend_pid() AS p')[0]['p'];
            $notifier->notify('jobs', 'first');
            $notifier->notify('Mixed Case', "with 'quotes' and \u{e9}");
            $notifier->notify('other', 'not listened to');
            $notifier->transaction(static function (\Petrel\Database\Connection $c): void {
                \assert($c instanceof PgsqlConnection);
                $c->notify('jobs', 'last'); // delivered at commit
            });
            $listening->join();

            self::assertSame([
                ['jobs', 'first', $notifierPid],
                ['Mixed Case', "with 'quotes' and \u{e9}", $notifierPid],
                ['jobs', 'last', $notifierPid],
            ], $received);
            self::assertSame([['n' => 1]], $listener->query('SELECT 1 AS n'), 'usable again, and no longer listening:');
            self::assertSame([], $listener->query('SELECT pg_listening_channels() AS c'));
        }, 20.0);
    }

    public function testUnlistenFromAnotherCoroutineAndCallsWhileListening(): void
    {
        $this->async(function (): void {
            $listener = $this->connect();
            $admin = $this->connect();
            $pid = (int) $listener->query('SELECT pg_backend_pid() AS p')[0]['p'];
            $listening = go(static fn () => $listener->listen(['quiet'], static fn (): bool => true));
            self::waitUntilListening($admin, $pid);
            try {
                $listener->query('SELECT 1');
                self::fail('a listening connection is busy');
            } catch (DatabaseError $e) {
                self::assertStringContainsString('already in use', $e->getMessage());
            }
            $listener->unlisten();
            $listening->join(); // returns normally
            self::assertSame([['n' => 1]], $listener->query('SELECT 1 AS n'));
        }, 20.0);
    }

    public function testClosingTheConnectionFromAnotherCoroutineEndsListeningNormally(): void
    {
        $this->async(function (): void {
            $listener = $this->connect();
            $admin = $this->connect();
            $pid = (int) $listener->query('SELECT pg_backend_pid() AS p')[0]['p'];
            $listening = go(static fn () => $listener->listen(['closing'], static fn (): bool => true));
            self::waitUntilListening($admin, $pid);
            $listener->close();
            self::assertNull($listening->join());
            self::assertFalse($listener->isUsable());
        }, 20.0);
    }

    public function testADeadlineEndsListeningAndLeavesTheConnectionUsable(): void
    {
        $this->async(function (): void {
            $listener = $this->connect();
            try {
                timeout(0.2, static fn () => $listener->listen(['nothing'], static fn (): bool => true));
                self::fail('expected the deadline');
            } catch (TimeoutException) {
            }
            self::assertTrue($listener->isUsable());
            self::assertSame([], $listener->query('SELECT pg_listening_channels() AS c'));
        }, 20.0);
    }

    public function testDatabaseListensOnAConnectionOfItsOwn(): void
    {
        $this->async(function (): void {
            $db = new Database(self::config());
            $admin = $this->connect();
            $got = null;
            $listening = go(static function () use ($db, &$got): void {
                $db->listen(['db-channel'], static function (string $channel, string $payload) use (&$got): bool {
                    $got = $payload;

                    return false;
                });
            });
            $deadline = \microtime(true) + 10;
            while ($admin->query("SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN %db-channel%' AND state = 'idle'") === []) {
                self::assertLessThan($deadline, \microtime(true), 'never listening');
                sleep(0.02);
            }
            $db->execute('SELECT pg_notify(?, ?)', ['db-channel', 'hello']);
            $listening->join();
            self::assertSame('hello', $got);
            self::assertSame(1, $db->pool()->stats()['size'], 'listening used no pooled connection: only the notify did');
            $db->close();
        }, 20.0);
    }

    /**
     * As a worker runs it: with opcache on, whose optimizer in PHP 8.2 takes pg_get_notify()
     * to always return an array. The listener then never waited and called back with empty
     * notifications without end. A process of its own, since this suite may run without
     * opcache; file_update_protection=0 so that a file just written is optimized too.
     */
    public function testListeningWorksWithOpcacheOnAsInAWorker(): void
    {
        if (!\extension_loaded('Zend OPcache')) {
            self::markTestSkipped('opcache is not installed');
        }
        $process = \proc_open(
            [\PHP_BINARY, '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=disable', '-d', 'opcache.file_update_protection=0', __DIR__ . '/fixtures/listen-two.php'],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $pipes,
        );
        self::assertIsResource($process);
        \stream_set_blocking($pipes[1], false);
        $output = '';
        $deadline = \microtime(true) + 20;
        while (($status = \proc_get_status($process))['running'] && \microtime(true) < $deadline) {
            $output .= (string) \stream_get_contents($pipes[1]);
            \usleep(20_000);
        }
        if ($status['running']) {
            \proc_terminate($process, 9);
        }
        $output .= (string) \stream_get_contents($pipes[1]);
        $errors = (string) \stream_get_contents($pipes[2]);
        \proc_close($process);

        self::assertFalse($status['running'], "still listening after 20 s: {$output}{$errors}");
        self::assertSame(0, $status['exitcode'], "{$output}{$errors}");
        self::assertSame("[\"jobs:first\",\"jobs:last\"]\n", $output);
    }

    public function testCopyToTheClientIsRefusedAndTheConnectionStaysUsable(): void
    {
        $table = $this->table('copy');
        $this->async(function () use ($table): void {
            $db = $this->connect();
            $db->execute("CREATE TABLE {$table} (id int)");
            foreach (["COPY {$table} FROM STDIN", "copy {$table} to stdout", "SELECT 1; COPY (SELECT 1) TO STDOUT WITH (FORMAT csv)"] as $sql) {
                try {
                    $db->query($sql);
                    self::fail("{$sql} must be refused");
                } catch (DatabaseError $e) {
                    self::assertStringContainsString('not supported', $e->getMessage());
                }
                self::assertTrue($db->isUsable(), $sql);
                self::assertSame([['n' => 1]], $db->query('SELECT 1 AS n'));
            }
            self::assertSame([['copy' => 'x']], $db->query("SELECT 'x' AS copy"), 'the word alone is fine');
        }, 20.0);
    }

    /** Waits (bounded) until backend $pid has run its LISTEN and is idle. */
    private static function waitUntilListening(PgsqlConnection $admin, int $pid): void
    {
        $deadline = \microtime(true) + 10;
        while ($admin->query("SELECT 1 FROM pg_stat_activity WHERE pid = ? AND query LIKE 'LISTEN %' AND state = 'idle'", [$pid]) === []) {
            self::assertLessThan($deadline, \microtime(true), "backend {$pid} never listened");
            sleep(0.02);
        }
    }
}
