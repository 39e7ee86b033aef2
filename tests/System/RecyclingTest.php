<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Socket\SocketException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;

/** --max-requests is a planned recycle, not a crash: replacement first, no request lost. */
final class RecyclingTest extends AsyncTestCase
{
    private const APP = __DIR__ . '/fixtures/app.php';

    public function testMaxRequestsReplacesWorkersWithoutLosingARequest(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2', '--max-requests=50']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 10, 'two ready workers');
        $stats = $this->async(static function () use ($server): array {
            $stats = ['ok' => 0, 'failed' => [], 'pids' => []];
            $clients = [];
            // 8 keep-alive clients and 4 that open a fresh connection per request, 40 each.
            for ($c = 0; $c < 12; $c++) {
                $clients[] = go(static function () use ($server, $c, &$stats): void {
                    $socket = null;
                    for ($i = 0; $i < 40; $i++) {
                        try {
                            $socket ??= RawHttp::connect($server->address);
                            $close = $c >= 8 ? "Connection: close\r\n" : '';
                            $socket->write("GET /pid HTTP/1.1\r\nHost: a\r\n{$close}\r\n");
                            $response = RawHttp::readResponse($socket);
                            if ($response?->status === 200) {
                                $stats['ok']++;
                                $stats['pids'][$response->body] = true;
                            } else {
                                $stats['failed'][] = 'status ' . ($response->status ?? 'none');
                            }
                            if ($close !== '' || $response?->header('connection') === 'close') {
                                $socket->close();
                                $socket = null;
                            }
                        } catch (SocketException $e) {
                            $stats['failed'][] = $e->getMessage();
                            $socket?->close();
                            $socket = null;
                        }
                    }
                    $socket?->close();
                });
            }
            foreach ($clients as $client) {
                $client->join();
            }

            return $stats;
        }, 60.0);
        self::assertSame([], $stats['failed'], 'every request succeeds while workers recycle');
        self::assertSame(480, $stats['ok']);
        self::assertGreaterThanOrEqual(3, \count($stats['pids']), 'fresh workers served: ' . \implode(',', \array_keys($stats['pids'])));
        PetrelProcess::waitFor(static fn () => \str_contains($server->log(), 'replaced by pid'), 10, 'a replacement in the log');
        $log = $server->log();
        self::assertMatchesRegularExpression('/worker \d reached \d+ requests: replaced by pid \d+/', $log);
        self::assertStringNotContainsString('restarting in', $log, 'a recycle is not a crash: no back-off');
        self::assertStringNotContainsString('exited with code', $log);
        self::assertSame(0, $server->stop());
    }

    public function testStopDuringRecyclingStopsEveryWorker(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2', '--max-requests=3']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 10, 'two ready workers');
        $this->async(static function () use ($server): void {
            for ($i = 0; $i < 12; $i++) {
                RawHttp::get($server->address, '/pid');
            }
        }, 30.0);
        $master = $server->masterPid();
        $children = static fn (): array => \array_filter(\explode(' ', \trim((string) @\file_get_contents("/proc/{$master}/task/{$master}/children"))));
        self::assertSame(0, $server->stop());
        self::assertSame([], $children(), 'no worker outlives the master');
        self::assertStringNotContainsString('restarting in', $server->log());
    }
}
