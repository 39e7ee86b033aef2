<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Socket\SocketException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;

/** --max-memory recycles a worker after the request; --memory-limit turns a runaway request into a 500. */
final class MemoryLimitTest extends AsyncTestCase
{
    private const APP = __DIR__ . '/fixtures/memory-app.php';

    public function testAWorkerPastMaxMemoryIsReplacedAfterTheRequest(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--max-memory=64M']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
        [$before] = $server->workerPids();
        $result = $this->async(static function () use ($server, $before): array {
            $load = new \stdClass();
            $load->running = true;
            $background = ['ok' => 0, 'failed' => []];
            $client = go(static function () use ($server, $load, &$background): void {
                $socket = null;
                while ($load->running) {
                    try {
                        $socket ??= RawHttp::connect($server->address);
                        $socket->write("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
                        $response = RawHttp::readResponse($socket);
                        $response?->status === 200 ? $background['ok']++ : $background['failed'][] = 'status ' . ($response->status ?? 'none');
                        if ($response?->header('connection') === 'close') {
                            $socket->close();
                            $socket = null;
                        }
                    } catch (SocketException $e) {
                        $background['failed'][] = $e->getMessage();
                        $socket?->close();
                        $socket = null;
                    }
                }
                $socket?->close();
            });
            $grown = [];
            for ($i = 0; $i < 2; $i++) {
                $response = RawHttp::get($server->address, '/grow');
                $grown[] = "{$response->status} {$response->body}";
            }
            $deadline = \microtime(true) + 15;
            while (\microtime(true) < $deadline && ($server->workerPids() === [$before] || \count($server->workerPids()) !== 1)) {
                \Petrel\sleep(0.1);
            }
            \Petrel\sleep(0.3); // keep the load on while the old worker drains
            $load->running = false;
            $client->join();

            return ['grown' => $grown, 'background' => $background];
        }, 30.0);
        self::assertSame(["200 {$before} holds 40 MB", "200 {$before} holds 80 MB"], $result['grown'], 'the request that passed --max-memory succeeds');
        self::assertSame([], $result['background']['failed'], 'no other request fails');
        self::assertGreaterThan(0, $result['background']['ok']);
        self::assertNotSame([$before], $server->workerPids(), 'the worker was replaced');
        self::assertMatchesRegularExpression('/worker 1 reached [\d.]+M of memory \(--max-memory=64M\): replaced by pid \d+/', $server->log());
        self::assertStringNotContainsString('restarting in', $server->log());
        self::assertSame(0, $server->stop());
    }

    public function testARequestPastMemoryLimitGetsA500AndTheWorkerRestartsAtOnce(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--memory-limit=64M']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
        [$before] = $server->workerPids();
        $response = $this->async(static fn () => RawHttp::get($server->address, '/allocate?mb=100'), 15.0);
        self::assertSame(500, $response->status);
        self::assertSame("500 Internal Server Error\n", $response->body);
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1 && $server->workerPids() !== [$before], 10, 'the restarted worker');
        $log = $server->log();
        self::assertStringContainsString('worker 1: GET /allocate?mb=100 exceeded memory_limit 64M; restarting', $log);
        self::assertStringNotContainsString('restarting in', $log, 'a healthy worker is restarted without back-off');
        $this->async(static fn () => self::assertSame('allocated 10485760', RawHttp::get($server->address, '/allocate?mb=10')->body));
        self::assertSame(0, $server->stop());
    }

    public function testAmongRequestsInFlightTheOneThatDiedGetsThe500(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--memory-limit=64M']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
        [$response, $slow] = $this->async(static function () use ($server): array {
            $slow = go(static function () use ($server): string {
                try {
                    return (string) RawHttp::get($server->address, '/sleep?ms=3000')->status;
                } catch (\RuntimeException | SocketException $lost) {
                    return 'lost';
                }
            });
            \Petrel\sleep(0.3); // its handler is asleep in the worker

            return [RawHttp::get($server->address, '/allocate?mb=100'), $slow->join()];
        }, 15.0);
        self::assertSame(500, $response->status, 'the request that passed the limit');
        self::assertSame('lost', $slow, 'the sleeping one is lost with the worker');
        self::assertStringContainsString('worker 1: GET /allocate?mb=100 exceeded memory_limit 64M; restarting', $server->log());
        self::assertSame(0, $server->stop());
    }

    public function testMaxMemoryBelowWhatAWorkerNeedsAtBootIsRefused(): void
    {
        $output = PetrelProcess::runCli(['start', self::APP, '--workers=1', '--max-memory=1M', '--listen=127.0.0.1:' . PetrelProcess::freePort(), '--pid-file=' . \sys_get_temp_dir() . '/petrel-memory-test-' . \getmypid() . '.pid'], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('--max-memory=1M is below what a worker uses right after boot', $output);
    }
}
