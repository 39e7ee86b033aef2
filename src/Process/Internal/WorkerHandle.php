<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

/**
 * The master's view of one worker process.
 *
 * @internal
 */
final class WorkerHandle
{
    public const STARTING = 'starting';
    public const READY = 'ready';
    public const RETIRING = 'retiring';

    public const HTTP = 'http';
    public const TASK = 'task';

    public string $state = self::STARTING;
    public string $buffer = '';
    public ?string $error = null;
    /** What the worker said when it became ready, for the start-up line. */
    public ?string $note = null;
    /** Why the worker asked to be replaced ("reached 10000 requests"), or null. */
    public ?string $retiringBecause = null;
    /** Why the worker said it is dying of a fatal error while healthy, or null. */
    public ?string $dyingBecause = null;
    /** When the master sent the SIGTERM of a retirement (WorkerTable::retire()), or null. */
    public ?float $retiredAt = null;
    /** @var array<string, mixed> */
    public array $status = [];
    /** When the last status came (microtime), or null before the first. */
    public ?float $statusAt = null;
    /**
     * False once the pipe is at end of file: the worker closed its end (or exited) and will say
     * nothing more. MasterWait stops selecting it: a pipe at EOF is always readable, and the
     * master spun on it (a select, a read of nothing, a waitpid, ~1,000 times a second: a
     * quarter of a core under `--max-requests=3000`) until the worker was reaped.
     */
    public bool $talking = true;
    /**
     * What its task slot said when the master reaped it (TaskSlots::forget()): the task it
     * was running as it died; null when idle, or without a slot ($taskSlot null).
     *
     * @var array{task: string, startedAt: float, killAt: ?float}|null
     */
    public ?array $taskAtExit = null;
    public readonly float $startedAt;

    /**
     * @param int $number the master's slot number (task workers come after the workers)
     * @param resource $pipe the master's end of the worker's pipe
     * @param self::HTTP|self::TASK $kind
     * @param int $shownNumber the number within its kind (task worker 1, 2…)
     * @param TaskSlot|null $taskSlot a task worker's slot in shared memory, or null (an HTTP
     *        worker; no FFI; every slot in use: then only lastTask() tells)
     */
    public function __construct(
        public readonly int $pid,
        public readonly int $number,
        public readonly mixed $pipe,
        public readonly string $kind,
        public readonly int $shownNumber,
        public readonly ?TaskSlot $taskSlot = null,
    ) {
        $this->startedAt = \microtime(true);
    }

    /** "worker 2" or "task worker 1", for logs. */
    public function label(): string
    {
        return ($this->kind === self::TASK ? 'task worker ' : 'worker ') . $this->shownNumber;
    }

    /**
     * The task the worker's last status said it was running (a task worker's "busy"), or
     * null. A task worker sends "busy" once per busy spell: it names the spell's first task.
     * Its task slot ($taskAtExit), where there is one, names the one it died running.
     */
    public function lastTask(): ?string
    {
        $task = $this->status['task'] ?? null;

        return ($this->status['activity'] ?? null) === 'busy' && \is_string($task) ? $task : null;
    }

    /**
     * Reads what the worker sent on its pipe: "ready", "error", "retiring", "dying" and status
     * lines (JSON). True when there was something: bytes, or the pipe's end.
     */
    public function readMessages(): bool
    {
        $heard = false;
        while (($data = @\fread($this->pipe, 65536)) !== false && $data !== '') {
            $this->buffer .= $data;
            $heard = true;
        }
        if (\feof($this->pipe)) {
            $heard = $heard || $this->talking;
            $this->talking = false;
        }
        while (($end = \strpos($this->buffer, "\n")) !== false) {
            $line = \substr($this->buffer, 0, $end);
            $this->buffer = \substr($this->buffer, $end + 1);
            $message = \json_decode($line, true);
            if (!\is_array($message)) {
                continue;
            }
            match ($message['type'] ?? null) {
                'ready' => $this->state === self::STARTING ? [$this->state = self::READY, $this->note = \is_string($message['note'] ?? null) ? $message['note'] : null] : null,
                'error' => $this->error = \is_string($message['message'] ?? null) ? $message['message'] : 'unknown error',
                'retiring' => $this->retiringBecause ??= \is_string($message['reason'] ?? null) ? $message['reason'] : 'asked to be replaced',
                'dying' => $this->dyingBecause = \is_string($message['reason'] ?? null) ? $message['reason'] : 'fatal error',
                'status' => [$this->status = \is_array($message['status'] ?? null) ? $message['status'] : [], $this->statusAt = \microtime(true)],
                default => null,
            };
        }

        return $heard;
    }
}
