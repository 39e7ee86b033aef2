<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\ConnectionException;
use Petrel\Database\Pgsql\PgsqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;

/**
 * Restarts the PostgreSQL server through the CI services script, so it runs only when
 * PETREL_SERVICES_SCRIPT points at it (.ci/services.sh env exports it).
 */
#[CoversClass(PgsqlConnection::class)]
final class ServerRestartTest extends PgsqlTestCase
{
    public function testConnectionsDieWithTheServerAndNewOnesWork(): void
    {
        $script = \getenv('PETREL_SERVICES_SCRIPT');
        if (!\is_string($script) || $script === '' || !\is_executable($script)) {
            self::markTestSkipped('restarts the server: set PETREL_SERVICES_SCRIPT (see .ci/services.sh env)');
        }
        $this->async(function () use ($script): void {
            $busy = $this->connect();
            $idle = $this->connect();
            $inFlight = go(static fn () => $busy->query('SELECT pg_sleep(60)'));
            sleep(0.1);
            self::assertSame(0, self::restart($script));

            try {
                $inFlight->join();
                self::fail('a query survived the server restart');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('lost', $e->getMessage());
            }
            self::assertFalse($busy->isUsable());
            self::assertFalse($idle->isUsable(), 'the idle connection is noticed dead without a round trip');
            try {
                $idle->query('SELECT 1');
                self::fail('a connection survived the server restart');
            } catch (ConnectionException) {
            }

            $fresh = $this->connect();
            self::assertSame([['v' => 1]], $fresh->query('SELECT 1 AS v'));
        }, 90.0);
    }

    /**
     * Runs "$script restart postgres", blocking (fine in a test). Descriptors above 2 are
     * closed first: the restarted server would otherwise inherit this process's (PHP does
     * not mark them close-on-exec) and keep the test runner's output pipe open for ever.
     */
    private static function restart(string $script): int
    {
        $closeInherited = 'for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; ';
        $command = 'bash -c ' . \escapeshellarg($closeInherited . 'exec ' . \escapeshellarg($script) . ' restart postgres') . ' </dev/null >/dev/null 2>&1';
        \exec($command, $output, $status);

        return $status;
    }
}
