<?php

declare(strict_types=1);

namespace Petrel\Task;

use Closure;
use Petrel\Observability\Log;
use Petrel\Socket\SocketServer;
use Petrel\Task\Internal\OverrunGuard;
use Petrel\Task\Internal\RemoteThrowable;
use Petrel\Task\Internal\TaskCodec;
use Petrel\Task\Internal\TaskExecutor;
use Petrel\Task\Internal\TaskRequest;
use Throwable;

/**
 * The task worker's side: accepts one connection at a time on the shared listening socket,
 * reads the task, runs it, writes the reply. While a task runs this process does not
 * accept, so the next task goes to another worker (or waits in the kernel's queue).
 *
 * A task whose submitter has already given up (deadline passed, connection closed) is
 * skipped. SIGTERM/SIGINT/SIGUSR1 are blocked while a task runs, so a blocking call
 * (usleep, a query) is not cut short; a SIGTERM or SIGINT (unless ignored) that came
 * meanwhile stops the server right after the task (and is consumed: its handlers do not run). If the task
 * kills the process with a fatal error or exit(), a shutdown function still tells the
 * submitter what happened.
 *
 * A task still running $overrunGrace after its caller's deadline (the request carries it)
 * ends this process (exit code 124, OverrunGuard): nobody waits for its result, and the
 * worker it held served nothing else, for ever if the task never returns. The shutdown
 * function says why on the pipe (onDeath: the task, how long it ran), so the master
 * replaces the worker at once; tasks queued meanwhile stay in the shared accept queue and
 * go to the replacement, or to another worker.
 */
final class TaskServer
{
    private const BLOCKED_SIGNALS = [\SIGTERM, \SIGINT, \SIGUSR1];
    private const REQUEST_READ_TIMEOUT = 5.0;
    /** Seconds a task may run past its caller's deadline before it ends its task worker. */
    public const OVERRUN_GRACE = 2.0;
    /** Seconds more before SIGKILL, for an exit that hangs or a task stuck in a C call. */
    public const KILL_GRACE = 3.0;
    public const EXIT_OVERRUN = 124; // as timeout(1)

    private readonly TaskExecutor $executor;
    private readonly OverrunGuard $guard;
    /** Why this process is ending the task now running (set by the guard), or null. */
    private ?string $overrun = null;
    private int $tasks = 0;
    /** @var array{resource, string, ?float}|null the connection, task and kill time (killAt()) now running */
    private ?array $running = null;
    private bool $shutdownRegistered = false;

    /**
     * @param Closure(string): void|null $onStart called before a task runs, with its name
     * @param Closure(int): void|null $onFinish called after each task, with the count so far
     * @param Closure(string): void|null $onDeath called by the shutdown function when a task
     *        kills the process (or the guard ends it), with the reason
     * @param float $overrunGrace seconds a task may run past its deadline (OVERRUN_GRACE)
     * @param float $killGrace seconds more before SIGKILL (KILL_GRACE)
     */
    public function __construct(
        private readonly SocketServer $server,
        private readonly ?Closure $onStart = null,
        private readonly ?Closure $onFinish = null,
        private readonly ?Closure $onDeath = null,
        float $overrunGrace = self::OVERRUN_GRACE,
        float $killGrace = self::KILL_GRACE,
    ) {
        $this->executor = new TaskExecutor();
        $this->guard = new OverrunGuard($overrunGrace, $killGrace, $this->endOverrun(...));
    }

    /** Serves tasks until stop(); call in a coroutine. */
    public function serve(): void
    {
        if (!$this->shutdownRegistered) {
            $this->shutdownRegistered = true;
            \register_shutdown_function($this->onShutdown(...));
        }
        while (($accepted = $this->server->acceptStream()) !== null) {
            $this->handle($accepted[0]);
        }
    }

    /** Stops accepting; serve() returns after the task now running, if any. */
    public function stop(): void
    {
        $this->server->close();
    }

    /** Tasks run so far. */
    public function tasks(): int
    {
        return $this->tasks;
    }

    /** The task running now, or null when idle. */
    public function current(): ?string
    {
        return $this->running[1] ?? null;
    }

    /**
     * When the overrun guard's kill timer SIGKILLs this process if the task running now is
     * still running (microtime); null when idle or without a kill timer. The master tells
     * that SIGKILL from a crash by it.
     */
    public function killAt(): ?float
    {
        return $this->running[2] ?? null;
    }

    /** @param resource $connection */
    private function handle(mixed $connection): void
    {
        try {
            \stream_set_blocking($connection, true);
            \stream_set_timeout($connection, (int) self::REQUEST_READ_TIMEOUT);
            $request = $this->readRequest($connection);
            if ($request === null || \microtime(true) > $request->deadline || self::peerLeft($connection)) {
                return; // nobody waits for it any more
            }
            try {
                TaskExecutor::check($request->task);
            } catch (TaskError $misuse) {
                @\fwrite($connection, TaskCodec::encodeReply(TaskCodec::REFUSED, "Task {$request->task} refused by task worker pid " . \getmypid() . ": {$misuse->getMessage()}"));

                return;
            }
            @\fwrite($connection, TaskCodec::encodeReply(TaskCodec::STARTED, (int) \getmypid()));
            $reply = $this->run($connection, $request);
            @\fwrite($connection, $reply); // fails harmlessly when the submitter left: discarded
        } finally {
            @\fclose($connection);
        }
    }

    /** @param resource $connection */
    private function run(mixed $connection, TaskRequest $request): string
    {
        \pcntl_sigprocmask(\SIG_BLOCK, self::BLOCKED_SIGNALS, $previousMask);
        $this->running = [$connection, $request->task, $this->guard->arm($request->deadline)];
        try {
            ($this->onStart)?->__invoke($request->task);
            $reply = TaskCodec::encodeReply(TaskCodec::RESULT, $this->executor->run($request->task, $request->args));
        } catch (Throwable $error) {
            $reply = TaskCodec::encodeReply(TaskCodec::THROWN, RemoteThrowable::capture($error));
        } finally {
            $this->guard->disarm();
            $this->running = null;
            $this->tasks++;
            // A stop signal that came during the task (still blocked: taken here, not by a
            // handler) stops now, before the next accept, which would not ask the loop first.
            if (\pcntl_sigtimedwait(self::stopSignals(), $info, 0, 0) > 0) {
                $this->stop();
            }
            \pcntl_sigprocmask(\SIG_SETMASK, $previousMask);
        }
        ($this->onFinish)?->__invoke($this->tasks);

        return $reply;
    }

    /**
     * SIGTERM, and SIGINT unless this process ignores it (a task worker: Ctrl-C is its
     * master's to act on). Blocked, an ignored SIGINT stays pending and would be taken here.
     *
     * @return list<int>
     */
    private static function stopSignals(): array
    {
        return \pcntl_signal_get_handler(\SIGINT) === \SIG_IGN ? [\SIGTERM] : [\SIGTERM, \SIGINT];
    }

    /** @param resource $connection */
    private function readRequest(mixed $connection): ?TaskRequest
    {
        $header = self::readExactly($connection, TaskCodec::HEADER_BYTES);
        if ($header === null) {
            return null;
        }
        try {
            $payload = self::readExactly($connection, TaskCodec::frameLength($header));

            return $payload === null ? null : TaskCodec::decodeRequest($payload);
        } catch (TaskException $malformed) {
            Log::stderr("petrel: task worker pid " . \getmypid() . " dropped a request: {$malformed->getMessage()}\n");

            return null;
        }
    }

    /**
     * @param resource $connection blocking, with a read timeout
     */
    private static function readExactly(mixed $connection, int $length): ?string
    {
        $data = '';
        while (\strlen($data) < $length) {
            $chunk = @\fread($connection, \max(1, $length - \strlen($data)));
            if ($chunk === false || $chunk === '') {
                return null; // EOF, or the read timeout
            }
            $data .= $chunk;
        }

        return $data;
    }

    /**
     * True when the submitter closed its end (it timed out or was cancelled) while the task
     * waited in the queue.
     *
     * @param resource $connection
     */
    private static function peerLeft(mixed $connection): bool
    {
        $read = [$connection];
        $write = $except = null;
        if (@\stream_select($read, $write, $except, 0) !== 1) {
            return false;
        }
        \stream_set_blocking($connection, false);
        $data = @\fread($connection, 1);
        \stream_set_blocking($connection, true);

        return $data === '' || $data === false;
    }

    /** The guard's call: the task now running is past its deadline and grace. */
    private function endOverrun(float $ran, float $late): never
    {
        $this->overrun = \sprintf('ran %.1f s, %.1f s past its deadline', $ran, $late);

        exit(self::EXIT_OVERRUN); // the shutdown function below says why
    }

    private function onShutdown(): void
    {
        if ($this->running === null) {
            return;
        }
        [$connection, $task] = $this->running;
        $this->running = null;
        if ($this->overrun !== null) {
            // No reply: its caller left at the deadline (a write to the closed connection
            // would fail, and an error handler of the task could throw here).
            ($this->onDeath)?->__invoke("task {$task} {$this->overrun} (its caller had given up): the task worker ended itself");

            return;
        }
        $error = \error_get_last();
        $fatal = $error !== null && ($error['type'] & (\E_ERROR | \E_CORE_ERROR | \E_COMPILE_ERROR | \E_USER_ERROR | \E_PARSE)) !== 0;
        $pid = \getmypid();
        $reason = $fatal
            ? "task worker pid {$pid} died of a fatal error while running it: {$error['message']} in {$error['file']}:{$error['line']}"
            : "task worker pid {$pid} exited while running it (the task called exit() or die())";
        @\fwrite($connection, TaskCodec::encodeReply(TaskCodec::DIED, $reason));
        ($this->onDeath)?->__invoke(\sprintf('task %s: %s', $task, $fatal ? "fatal error: {$error['message']}" : 'exit() called'));
    }
}
