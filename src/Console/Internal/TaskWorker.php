<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\ConsoleException;
use Petrel\Console\StartOptions;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Timer;
use Petrel\Process\WorkerContext;
use Petrel\Socket\SocketServer;
use Petrel\Task\Internal\TaskWorkerRunner;
use Petrel\Task\Tasks;
use Petrel\Task\TaskServer;
use Throwable;

use function Petrel\run;

/**
 * The entry of a task worker process (--task-workers): it does not load the APP (a request
 * handler; its boot may connect, start timers…) but the Composer autoloader of the APP's
 * project, so tasks can use the application's classes; it shares no state with the HTTP
 * workers. It serves tasks on the Unix socket the master bound (TaskServer), reports its
 * status (tasks run, idle or busy with which task; and in its task slot, every task it
 * starts and ends: WorkerContext::taskStarted()), asks for a replacement after
 * --max-requests tasks or past --max-memory, and stops gracefully on SIGTERM: the running
 * task finishes first. A task still running 2 s past its caller's deadline ends this
 * process (TaskServer, exit code 124), saying which task and how long it ran as "dying" on
 * the pipe, so the master replaces it at once. It ignores SIGINT (Ctrl-C): its master
 * stops it once the HTTP workers, which may submit tasks until they have drained, are gone.
 *
 * @internal
 */
final class TaskWorker
{
    /**
     * @param resource $taskListener the task socket, bound by the master
     * @param resource|null $httpListener the master's HTTP listening socket, closed here so a
     *        stopping master's close stops the kernel queueing connections
     */
    public function __construct(
        private readonly StartOptions $options,
        private readonly mixed $taskListener,
        private readonly mixed $httpListener,
    ) {
    }

    public function __invoke(WorkerContext $context): int
    {
        $options = $this->options;
        if (\is_resource($this->httpListener)) {
            \fclose($this->httpListener);
        }
        $recycle = new RecycleTrigger($context, $options->maxRequests, $options->maxMemory, 'tasks');
        try {
            RecycleTrigger::applyMemoryLimit($options->memoryLimit);
            self::loadAutoloader($options->app);
            $recycle->check();
        } catch (ConsoleException $error) {
            $context->fail($error->getMessage());

            return 78;
        }
        Tasks::setRunner(new TaskWorkerRunner()); // no tasks from a task: it says why
        $busy = false;
        $server = new TaskServer(
            new SocketServer($this->taskListener),
            onStart: static function (string $task) use ($context, &$busy, &$server): void {
                \assert($server instanceof TaskServer);
                $context->taskStarted($task, $server->killAt()); // every task: the master names the one this process dies in
                if (!$busy) { // once per busy spell (one per task cost ~20 % of tasks/s); the timer below cannot run during a blocking task
                    $busy = true;
                    $context->reportStatus(['requests' => $server->tasks(), 'activity' => 'busy', 'task' => $task, 'kill_at' => $server->killAt()]);
                }
            },
            onFinish: static function (int $tasks) use ($context, $recycle): void {
                $context->taskEnded();
                $recycle->afterRequest($tasks);
            },
            onDeath: $context->dying(...),
        );
        $scheduler = Scheduler::get();
        $driver = $scheduler->driver;
        $stop = static function () use ($server, $scheduler): void {
            Timer::stopAll($scheduler); // a task's every(): no tick starts once the stop begins
            $server->stop();
        };
        $driver->unreference($driver->onSignal(\SIGTERM, $stop));
        // Ctrl-C sends SIGINT to the terminal's whole process group: the task workers would
        // stop with the master and the HTTP workers, while requests still draining there
        // submit tasks (they got a task timeout). The master stops task workers last.
        \pcntl_signal(\SIGINT, \SIG_IGN);
        \pcntl_signal(\SIGUSR1, \SIG_IGN);
        $context->watchMaster($driver, $stop);
        $report = static function () use ($context, $server, $recycle, &$busy): void {
            $task = $server->current(); // set when a task suspends on coroutine I/O
            $busy = $task !== null;
            $context->reportStatus(['requests' => $server->tasks(), 'activity' => $busy ? 'busy' : 'idle'] + ($task !== null ? ['task' => $task, 'kill_at' => $server->killAt()] : []));
            $recycle->checkResidentSize();
        };
        $driver->unreference($driver->repeat(1.0, $report));
        $report();
        $context->ready();

        run(static function () use ($server, $scheduler, $options): void {
            $server->serve();
            // A tick a task's every() is running finishes, as in an HTTP worker (a SIGTERM
            // that came during a task stopped the server without the handler above).
            Timer::finishTicks($scheduler, $options->gracefulTimeout);
        });

        return 0;
    }

    /**
     * Requires the nearest vendor/autoload.php above the APP file (the APP's own project),
     * unless it is the one already loaded.
     *
     * @throws ConsoleException when it fails
     */
    private static function loadAutoloader(string $app): void
    {
        $dir = \dirname((string) (\realpath($app) ?: $app));
        while (true) {
            $autoload = "{$dir}/vendor/autoload.php";
            if (\is_file($autoload)) {
                try {
                    require_once $autoload;
                } catch (Throwable $error) {
                    throw new ConsoleException("task worker: {$autoload} failed: {$error->getMessage()}", 0, $error);
                }

                return;
            }
            $parent = \dirname($dir);
            if ($parent === $dir) {
                return; // none: the autoloader bin/petrel loaded is all there is
            }
            $dir = $parent;
        }
    }
}
