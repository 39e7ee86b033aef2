<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Socket\SocketException;
use PHPUnit\Framework\Attributes\DataProvider;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;

/**
 * --max-memory recycles a worker after the request; --memory-limit turns a runaway request
 * into a 500, as exit() in a handler is (FatalErrorResponder).
 */
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

    /**
     * The request that died gets the 500; the others in flight on that worker, whose
     * handlers will never return, were lost with it (a reset); they get a 503 with
     * Retry-After now: another worker can serve them.
     */
    public function testAmongRequestsInFlightTheOneThatDiedGetsThe500AndTheOthersA503(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--memory-limit=64M']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
        [$response, $slow] = $this->diesWithAnotherInFlight($server, '/allocate?mb=100');
        self::assertSame(500, $response->status, 'the request that passed the limit');
        self::assertSame('503 1 503 Service Unavailable', $slow, 'the sleeping one');
        self::assertStringContainsString('worker 1: GET /allocate?mb=100 exceeded memory_limit 64M; restarting', $server->log());
        self::assertStringContainsString('worker 1: 1 other request(s) in flight answered 503: the worker is ending', $server->log());
        self::assertSame(0, $server->stop());
    }

    /**
     * exit() in a handler (a php-fpm habit) ended the worker without a word: its client and
     * every other request in flight got a reset, the log said only that the worker exited,
     * and the master restarted it with a crash's back-off. It is answered and named as a
     * fatal error is.
     */
    public function testExitInAHandlerIsA500NamedInTheLogAndTheWorkerRestartsAtOnce(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
        [$before] = $server->workerPids();
        [$response, $slow] = $this->diesWithAnotherInFlight($server, '/exit');
        self::assertSame(500, $response->status);
        self::assertSame("500 Internal Server Error\n", $response->body);
        self::assertSame('503 1 503 Service Unavailable', $slow, 'the sleeping one');
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1 && $server->workerPids() !== [$before], 10, 'the restarted worker');
        $log = $server->log();
        self::assertStringContainsString('worker 1: GET /exit called exit() in its handler, which ends a resident worker (return a Response instead); restarting', $log);
        self::assertStringNotContainsString('restarting in', $log, 'a healthy worker is restarted without back-off');
        $this->async(static fn () => self::assertSame('Hello, World!', RawHttp::get($server->address, '/')->body));
        self::assertSame(0, $server->stop());
    }

    /**
     * exit() or memory_limit in a coroutine the handler started (two levels down here) was
     * not taken for its request's while another request was in flight: both clients got a
     * 503, the log named no request, and an exit() was restarted with a crash's back-off.
     */
    #[DataProvider('deathsInAChildCoroutine')]
    public function testADeathInACoroutineTheHandlerStartedIsItsRequests(string $path, string $what): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--memory-limit=64M']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
        [$before] = $server->workerPids();
        [$response, $slow] = $this->diesWithAnotherInFlight($server, $path);
        self::assertSame(500, $response->status, 'the request whose coroutine died');
        self::assertSame('503 1 503 Service Unavailable', $slow, 'the sleeping one');
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1 && $server->workerPids() !== [$before], 10, 'the restarted worker');
        self::assertStringContainsString("worker 1: GET {$path} {$what}; restarting", $server->log());
        self::assertStringNotContainsString('restarting in', $server->log(), 'restarted at once');
        self::assertSame(0, $server->stop());
    }

    /** @return array<string, array{string, string}> */
    public static function deathsInAChildCoroutine(): array
    {
        return [
            'exit()' => ['/child/exit', 'called exit() in a coroutine its handler started, which ends a resident worker (return a Response instead)'],
            'memory_limit' => ['/child/allocate?mb=100', 'exceeded memory_limit 64M'],
        ];
    }

    /**
     * The 500 and the 503s a dying worker answers were in no access log: the log had no
     * line for the request that killed the worker, the one an operator looks for first.
     * Each answer gets its line, in either format (the JSON one without a duration: the
     * request's start died with the worker).
     */
    #[DataProvider('accessLogFormats')]
    public function testADyingWorkersAnswersAreInTheAccessLog(string $format): void
    {
        $accessLog = \sys_get_temp_dir() . '/petrel-memory-access-' . \getmypid() . ".{$format}.log";
        @\unlink($accessLog);
        $server = (new PetrelProcess(self::APP, ['--workers=1', "--access-log={$accessLog}", "--access-log-format={$format}"]))->start();
        try {
            PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'a ready worker');
            [$before] = $server->workerPids();
            [$response, $slow] = $this->diesWithAnotherInFlight($server, '/exit');
            self::assertSame(500, $response->status);
            self::assertSame('503 1 503 Service Unavailable', $slow);
            PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1 && $server->workerPids() !== [$before], 10, 'the restarted worker');
            $lines = \file($accessLog, \FILE_IGNORE_NEW_LINES) ?: [];
            if ($format === 'json') {
                $lines = \array_map(static function (string $line): string {
                    $entry = \json_decode($line, true, flags: \JSON_THROW_ON_ERROR);

                    return "{$entry['method']} {$entry['target']} {$entry['status']} {$entry['bytes']} " . \json_encode($entry['duration_ms']);
                }, $lines);
                self::assertSame(['GET /exit 500 26 null', 'GET /sleep?ms=3000 503 24 null'], $lines);
            } else {
                self::assertCount(2, $lines);
                self::assertMatchesRegularExpression('~^127\.0\.0\.1 - - \[[^]]+\] "GET /exit HTTP/1\.1" 500 26 "-" "-"$~', $lines[0]);
                self::assertMatchesRegularExpression('~^127\.0\.0\.1 - - \[[^]]+\] "GET /sleep\?ms=3000 HTTP/1\.1" 503 24 "-" "-"$~', $lines[1]);
            }
            self::assertSame(0, $server->stop());
        } finally {
            @\unlink($accessLog);
        }
    }

    /** @return array<string, array{string}> */
    public static function accessLogFormats(): array
    {
        return ['combined' => ['combined'], 'json' => ['json']];
    }

    /**
     * Sends GET $path while GET /sleep?ms=3000 is in its handler: the first's response, and
     * the sleeping one's "status Retry-After body" (or "lost").
     *
     * @return array{\Petrel\Tests\Support\RawResponse, string}
     */
    private function diesWithAnotherInFlight(PetrelProcess $server, string $path): array
    {
        return $this->async(static function () use ($server, $path): array {
            $slow = go(static function () use ($server): string {
                try {
                    $response = RawHttp::get($server->address, '/sleep?ms=3000');

                    return \trim("{$response->status} {$response->header('retry-after')} {$response->body}");
                } catch (\RuntimeException | SocketException $lost) {
                    return 'lost';
                }
            });
            \Petrel\sleep(0.3); // its handler is asleep in the worker

            return [RawHttp::get($server->address, $path), $slow->join()];
        }, 15.0);
    }

    public function testMaxMemoryBelowWhatAWorkerNeedsAtBootIsRefused(): void
    {
        $output = PetrelProcess::runCli(['start', self::APP, '--workers=1', '--max-memory=1M', '--listen=127.0.0.1:' . PetrelProcess::freePort(), '--pid-file=' . \sys_get_temp_dir() . '/petrel-memory-test-' . \getmypid() . '.pid'], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('--max-memory=1M is below what a worker uses right after boot', $output);
    }
}
