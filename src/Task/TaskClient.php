<?php

declare(strict_types=1);

namespace Petrel\Task;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\ConnectException;
use Petrel\Socket\ConnectOptions;
use Petrel\Socket\SocketException;
use Petrel\Socket\StreamSocket;
use Petrel\Task\Internal\RemoteThrowable;
use Petrel\Task\Internal\TaskCodec;
use Petrel\Task\Internal\TaskExecutor;

use function Petrel\Socket\connect;

/**
 * Sends tasks to the task workers over their Unix socket and suspends the calling coroutine
 * (never the process) until the reply: one connection per task; a busy task worker does not
 * accept, so tasks wait in the kernel's accept queue and go to the first free worker.
 *
 * Bounded: at most $queueSize tasks of this process wait or run at once; one more is refused
 * with TaskQueueFullException, never queued. A timeout (queueing included) throws
 * TaskTimeoutException; the coroutine's own timeout()/cancel() reach the wait too. Either
 * way the connection closes: a task still queued is then skipped by the worker that takes
 * it, a running one finishes and its result is discarded; one still running
 * TaskServer::OVERRUN_GRACE after the timeout ends its task worker, which is replaced.
 */
final class TaskClient implements TaskRunner
{
    private int $pending = 0;

    public function __construct(
        public readonly string $socketPath,
        public readonly int $queueSize = 64,
        public readonly float $defaultTimeout = 60.0,
    ) {
        if ($queueSize < 1) {
            throw new TaskError("The task queue needs room for at least one task, got {$queueSize}");
        }
    }

    public function run(string $task, array $args = [], ?float $timeout = null): mixed
    {
        TaskExecutor::check($task);
        $timeout ??= $this->defaultTimeout;
        if ($timeout <= 0) {
            throw new TaskError("Task {$task}: the timeout must be positive, got {$timeout}");
        }
        $request = TaskCodec::encodeRequest($task, $args, \microtime(true) + $timeout);
        if ($this->pending >= $this->queueSize) {
            throw new TaskQueueFullException("Task {$task} refused: the task queue is full ({$this->pending} tasks of this worker already wait or run; raise --task-queue or add --task-workers)");
        }
        $this->pending++;
        $scheduler = Scheduler::get();
        $deadline = $scheduler->driver->now() + $timeout;
        try {
            return $scheduler->timeout($timeout, fn (): mixed => $this->roundTrip($task, $request));
        } catch (TimeoutException $expired) {
            if ($scheduler->driver->now() < $deadline) {
                throw $expired; // an outer timeout() of the caller, not ours
            }
            throw new TaskTimeoutException("Task {$task} did not finish within {$timeout} s (queueing included); its result, if it ever comes, is discarded", 0, $expired);
        } finally {
            $this->pending--;
        }
    }

    /** Tasks of this process waiting or running now. */
    public function pending(): int
    {
        return $this->pending;
    }

    private function roundTrip(string $task, string $request): mixed
    {
        $socket = $this->connect($task);
        $pid = null;
        try {
            $socket->write($request);
            while (true) {
                $payload = $socket->readExactly(TaskCodec::frameLength($socket->readExactly(TaskCodec::HEADER_BYTES)));
                [$kind, $data] = TaskCodec::decodeReply($payload);
                $where = 'task ' . $task . ($pid !== null ? " in task worker pid {$pid}" : '');
                match ($kind) {
                    TaskCodec::STARTED => $pid = \is_int($data) ? $data : null,
                    TaskCodec::RESULT => null,
                    TaskCodec::THROWN => throw RemoteThrowable::rebuild($data, $where),
                    TaskCodec::DIED => throw new TaskWorkerDiedException("Task {$task} failed: " . (\is_string($data) ? $data : 'its task worker died')),
                    default => throw new TaskError(\is_string($data) ? $data : "Task {$task} was refused by the task worker"),
                };
                if ($kind === TaskCodec::RESULT) {
                    return $data;
                }
            }
        } catch (SocketException $lost) {
            throw new TaskWorkerDiedException($pid === null
                ? "Task {$task} failed: the task worker closed the connection before starting it ({$lost->getMessage()})"
                : "Task {$task} failed: task worker pid {$pid} died while running it, without a word (killed by a signal or crashed; the master's log names the signal)", 0, $lost);
        } finally {
            $socket->close();
        }
    }

    private function connect(string $task): StreamSocket
    {
        try {
            return connect("unix://{$this->socketPath}", new ConnectOptions(connectTimeout: \max(1.0, $this->defaultTimeout)));
        } catch (ConnectException $error) {
            if (\str_contains($error->getMessage(), 'temporarily unavailable')) {
                throw new TaskQueueFullException("Task {$task} refused: the task workers' accept queue is full", 0, $error);
            }
            throw new TaskException("Task {$task}: cannot reach the task workers at {$this->socketPath}: {$error->getMessage()}", 0, $error);
        }
    }
}
