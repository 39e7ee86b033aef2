<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Socket\SocketException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;
use PHPUnit\Framework\Attributes\DataProvider;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

/**
 * The database restarts, nothing is lost: under continuous load, restart MariaDB,
 * PostgreSQL or Redis. Requests in flight during the restart may fail with a clear 500;
 * afterwards every request succeeds again, and no worker crashed. A request that gets no
 * answer within REQUEST_TIMEOUT counts as hung (status 0), so a hang fails with a message
 * instead of the whole test running into its deadline.
 */
final class ServiceRestartTest extends AsyncTestCase
{
    private const REQUEST_TIMEOUT = 15.0;

    /** @return iterable<string, array{string, string, string, string}> */
    public static function services(): iterable
    {
        yield 'MariaDB' => ['MYSQL_URL', 'DATABASE_URL', 'mariadb', '/db'];
        yield 'PostgreSQL' => ['PGSQL_URL', 'DATABASE_URL', 'postgres', '/db'];
        yield 'Redis' => ['REDIS_URL', 'REDIS_URL', 'redis', '/redis'];
    }

    #[DataProvider('services')]
    public function testServerRecoversFromARestartUnderLoad(string $urlVariable, string $appVariable, string $service, string $path): void
    {
        $script = \getenv('PETREL_SERVICES_SCRIPT');
        $url = \getenv($urlVariable);
        if (!\is_string($script) || $script === '' || !\is_string($url) || $url === '') {
            $message = "needs {$urlVariable} and PETREL_SERVICES_SCRIPT (eval \"\$(.ci/services.sh start)\")";
            \getenv('PETREL_REQUIRE_SERVICES') === '1' ? self::fail($message) : self::markTestSkipped($message);
        }
        $saved = \getenv($appVariable);
        \putenv("{$appVariable}={$url}");
        try {
            $server = (new PetrelProcess(__DIR__ . '/fixtures/services-app.php', ['--workers=2']))->start();
        } finally {
            \putenv($saved === false ? $appVariable : "{$appVariable}={$saved}");
        }
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 5, 'two ready workers');
        $workers = $server->workerPids();

        $restartLog = \tempnam(\sys_get_temp_dir(), 'petrel-restart-');
        try {
            $stats = $this->restartUnderLoad($server, $script, $service, $path, $restartLog);
        } finally {
            @\unlink($restartLog);
        }
        $context = \sprintf("%s restarted in %.1f s; statuses %s; server log:\n%s", $service, $stats['restart'], \json_encode($stats['statuses']), $server->log());

        self::assertSame($workers, $server->workerPids(), "no worker crashed or was replaced\n{$context}");
        self::assertGreaterThan(0, $stats['ok'], $context);
        foreach (\array_keys($stats['statuses']) as $status) {
            self::assertContains($status, [200, 500], "failures during the restart are clean 500s, never dropped connections or hung requests (0)\n{$context}");
        }
        if (($stats['statuses'][500] ?? 0) > 0) {
            self::assertMatchesRegularExpression('/failed: .*(Connection|Redis|Lost|closed|refused|terminat)/i', $server->log(), 'the failure is logged with a clear reason');
        }
        self::assertSame(0, $server->stop());
    }

    /**
     * Runs 8 clients against $path, restarts $service under them, checks the recovery.
     *
     * @return array{ok: int, failed: int, statuses: array<int, int>, restart: float}
     */
    private function restartUnderLoad(PetrelProcess $server, string $script, string $service, string $path, string $restartLog): array
    {
        return $this->async(static function () use ($server, $script, $service, $path, $restartLog): array {
            $get = static fn (): int => timeout(self::REQUEST_TIMEOUT, static fn (): int => RawHttp::get($server->address, $path)->status);
            self::assertSame(200, $get(), 'works before the restart');
            $stats = ['ok' => 0, 'failed' => 0, 'statuses' => [], 'restart' => 0.0];
            $running = true;
            $clients = [];
            for ($c = 0; $c < 8; $c++) {
                $clients[] = go(static function () use ($get, &$running, &$stats): void {
                    while ($running) {
                        try {
                            $status = $get();
                        } catch (SocketException | \RuntimeException) { // TimeoutException included: a hung request
                            $status = 0;
                        }
                        $status === 200 ? $stats['ok']++ : $stats['failed']++;
                        $stats['statuses'][$status] = ($stats['statuses'][$status] ?? 0) + 1;
                        sleep(0.005);
                    }
                });
            }
            sleep(0.3);
            $started = \microtime(true);
            $restart = \proc_open([$script, 'restart', $service], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $restartLog, 'w'], 2 => ['file', $restartLog, 'a']], $pipes);
            self::assertIsResource($restart);
            while (($status = \proc_get_status($restart))['running']) {
                sleep(0.05);
            }
            \proc_close($restart);
            $stats['restart'] = \microtime(true) - $started;
            self::assertSame(0, $status['exitcode'], "{$service} restarted: " . \file_get_contents($restartLog));
            // Recovery: new requests succeed again shortly after the server is back.
            $deadline = \microtime(true) + 10;
            while ($get() !== 200) {
                self::assertLessThan($deadline, \microtime(true), 'the app recovers after the restart');
                sleep(0.05);
            }
            for ($i = 0; $i < 30; $i++) {
                self::assertSame(200, $get(), 'every request after recovery succeeds');
            }
            $running = false;
            foreach ($clients as $client) {
                $client->join();
            }

            return $stats;
        }, 90.0);
    }
}
