<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\AppLoader;
use Petrel\Console\ConsoleException;
use Petrel\Console\StartOptions;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Timer;
use Petrel\Http\HttpLimits;
use Petrel\Http\ModePreference;
use Petrel\Http\RequestHandler;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Http\StaticFiles;
use Petrel\Loop\DriverFactory;
use Petrel\Observability\BlockingDetector;
use Petrel\Observability\LeakCheck;
use Petrel\Observability\RequestMetrics;
use Petrel\Pool\PoolRegistry;
use Petrel\Process\WorkerContext;
use Petrel\Socket\ServerOptions;
use Petrel\Socket\SocketServer;
use Petrel\Task\TaskClient;
use Petrel\Task\Tasks;

use function Petrel\run;

/**
 * The entry of an HTTP worker process: set memory_limit (--memory-limit), boot the APP
 * (behind the --static files, if given), serve on the listening socket inherited from the
 * master (or bound here with SO_REUSEPORT), report status, stop gracefully on SIGTERM/SIGINT.
 * After --max-requests requests or past --max-memory it asks the master for a replacement
 * (RecycleTrigger) and serves on until the master, its replacement ready, sends SIGTERM. A
 * request that dies of a fatal error (memory_limit) still gets a 500 (FatalErrorResponder).
 * With --task-workers, Petrel\Task\Tasks sends tasks to them (a TaskClient).
 *
 * Observability: requests are counted (Observability\RequestMetrics) and sent with the
 * status every second, with the loop's lag (the worst delay of a 0.25 s timer in that
 * second), the pools' gauges and the blocking episodes, and once more as the worker ends
 * (exit() or a fatal error in a handler included). The status's "requests" are those
 * answered, the ones refused before any handler (400, 413, 431, 503…) included, as its
 * counts by status class have them. The blocking detector runs in coroutine mode unless
 * --block-threshold=0 (the master watches the loop's ticks this worker publishes in its
 * slot, WorkerContext::$watchdogCells); --leak-check wraps the APP in LeakCheck.
 *
 * @internal
 */
final class HttpWorker
{
    /**
     * @param resource|null $listener the master's listening socket, or null with --reuse-port
     * @param resource|null $taskListener the task workers' socket (--task-workers), closed
     *        here: this worker only connects to it
     */
    public function __construct(
        private readonly StartOptions $options,
        private readonly mixed $listener,
        private readonly mixed $taskListener = null,
    ) {
    }

    public function __invoke(WorkerContext $context): int
    {
        $options = $this->options;
        if (\is_resource($this->taskListener)) {
            \fclose($this->taskListener);
        }
        Tasks::setRunner($options->taskWorkers > 0 ? new TaskClient($options->taskSocket(), $options->taskQueue, $options->taskTimeout) : null);
        $recycle = new RecycleTrigger($context, $options->maxRequests, $options->maxMemory);
        try {
            RecycleTrigger::applyMemoryLimit($options->memoryLimit);
            // In a coroutine, so what the APP does at boot (connect, migrate, warm caches)
            // can use coroutine I/O, and connections it leases go back to their pools.
            $handler = run(fn () => AppLoader::load($this->options->app));
            $mode = $this->modeFor($handler);
            $note = $mode !== $options->mode && $handler instanceof ModePreference
                ? "{$mode} mode ({$handler->modeReason()}; --mode={$options->mode} overrides)"
                : null;
            if ($options->leakCheck) {
                $handler = new LeakCheck($handler);
            }
            if ($this->options->staticDir !== null) {
                $handler = new StaticFiles($this->options->staticDir, $handler);
            }
            $listener = $this->listener !== null
                ? new SocketServer($this->listener)
                : SocketServer::listen($this->options->listen, (new ServerOptions(backlog: 1024))->withReusePort());
            $recycle->check();
        } catch (ConsoleException | \Petrel\Socket\SocketException $error) {
            $context->fail($error->getMessage());

            return 78;
        }
        $metrics = new RequestMetrics();
        $choice = DriverFactory::choose(); // the one the scheduler makes
        $descriptors = ConnectionLimit::descriptorLimit();
        $maxConnections = $options->maxConnections ?? ConnectionLimit::maximum($choice, $descriptors);
        $server = new Server($handler, new ServerConfig(
            mode: $mode,
            limits: (new HttpLimits())->withMaxBodyBytes($options->maxBodyBytes),
            headerTimeout: $options->headerTimeout,
            idleTimeout: $options->idleTimeout,
            debug: $options->debug,
            gzip: $options->gzip,
            accessLog: $options->accessLog,
            maxConnections: $maxConnections,
            accessLogFormat: $options->accessLogFormat,
            maxRejecting: ConnectionLimit::rejecting($choice, $maxConnections, $descriptors),
        ), $metrics);
        (new FatalErrorResponder($server, $context, $options->memoryLimit === -1 ? 'none' : RecycleTrigger::size($options->memoryLimit)))->register();
        if ($options->maxRequests > 0 || $options->maxMemory > 0) {
            $server->onRequest($recycle->afterRequest(...));
        }
        $scheduler = Scheduler::get();
        $driver = $scheduler->driver;
        $stoppedAt = null;
        $stop = static function () use ($server, $scheduler, &$stoppedAt): void {
            $stoppedAt ??= \microtime(true);
            Timer::stopAll($scheduler); // the APP's every(): no tick starts while requests drain
            $server->stop();
        };
        foreach ([\SIGTERM, \SIGINT] as $signal) {
            $driver->unreference($driver->onSignal($signal, $stop));
        }
        \pcntl_signal(\SIGUSR1, \SIG_IGN);
        $context->watchMaster($driver, $stop);
        $detector = null;
        if ($context->watchdogCells !== null && $mode === ServerConfig::MODE_COROUTINE) {
            // The master watches the loop (it logged it if it cannot): publish the ticks.
            $detector = new BlockingDetector($options->blockThreshold);
            $detector->start($context->watchdogCells);
        }
        $lag = 0.0;
        $due = \hrtime(true) * 1e-9 + 0.25;
        $driver->unreference($driver->repeat(0.25, static function () use (&$lag, &$due): void {
            $now = \hrtime(true) * 1e-9;
            $lag = \max($lag, $now - $due);
            $due = $now + 0.25;
        }));
        $sendStatus = static function () use ($context, $server, $scheduler, $metrics, &$lag, $detector): void {
            $stats = $server->stats();
            $stats['requests'] += $metrics->refusedTotal(); // answered: the refused too, as the counts by class have them
            $context->reportStatus($stats + [
                'coroutines' => $scheduler->stats()['alive'],
                'metrics' => $metrics->snapshot() + ['loop_lag' => \round(\max(0.0, $lag), 4), 'blocked' => $detector->episodes ?? 0, 'pools' => PoolRegistry::stats()],
            ]);
        };
        // The last report, once: after the serve loop, or from PHP's shutdown when exit() or a
        // fatal error in a handler ends the worker first (no `finally` runs then), so what it
        // answered since the last second's report still reaches the master and /metrics.
        // Registered after FatalErrorResponder's (shutdown functions run in order), so the
        // 500 and 503s it answers a dying worker's requests with are in this report.
        $lastSent = false;
        $sendLast = static function () use ($sendStatus, &$lastSent): void {
            if (!$lastSent) {
                $lastSent = true;
                @\ini_set('memory_limit', '-1'); // a worker dying of memory_limit has none left to report with
                $sendStatus();
            }
        };
        \register_shutdown_function($sendLast);
        $report = static function () use ($sendStatus, $recycle, &$lag): void {
            $sendStatus();
            $lag = 0.0;
            $recycle->checkResidentSize();
        };
        $driver->unreference($driver->repeat(1.0, $report));
        $report();
        $context->ready($note);

        run(static function () use ($server, $listener, $options, $scheduler, &$stoppedAt): void {
            $server->serve($listener, $options->gracefulTimeout);
            // Ticks running at the stop finish too, within what the drain left of the timeout.
            Timer::finishTicks($scheduler, $options->gracefulTimeout - (\microtime(true) - ($stoppedAt ?? \microtime(true))));
        });
        $detector?->stop();
        $sendLast(); // what was answered since the report a second ago counts in /metrics

        return 0;
    }

    /**
     * --mode, or, when none was given, the mode the APP's handler says it is safe in (a
     * Symfony kernel: sync); the start-up line says so (see ready()).
     */
    private function modeFor(RequestHandler $handler): string
    {
        if ($this->options->modeGiven || !$handler instanceof ModePreference) {
            return $this->options->mode;
        }
        return $handler->preferredMode();
    }
}
