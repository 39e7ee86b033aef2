<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

/**
 * One task worker process's slot in shared memory (TaskSlots): the task it is running. The
 * worker writes it as each task starts and ends; the master reads it once it has reaped the
 * worker, so it names the task a worker killed by a signal (its overrun guard's kill timer,
 * the OOM killer, kill -9) was running, and tells the kill timer's SIGKILL from a crash. The
 * worker's "busy" status cannot: it is sent once per busy spell (one per task cost ~20 % of
 * tasks/s), so it names the spell's first task.
 *
 * Cells (int64): STATE (IDLE or RUNNING); STARTED_AT and KILL_AT in µs since the epoch
 * (KILL_AT 0 without a kill timer); NAME_LENGTH; then the name's bytes, NAME_BYTES at most
 * (a longer name is cut, ending in CUT). start() marks the slot idle first and running
 * last: a worker killed between two of its writes leaves it idle, or a complete record.
 * The master reads only a dead worker's slot, so never one being written.
 *
 * @internal
 */
final class TaskSlot
{
    public const NAME_BYTES = 240;
    public const CELLS = 4 + self::NAME_BYTES / 8;
    public const CUT = '...';
    private const STATE = 0;
    private const STARTED_AT = 1;
    private const KILL_AT = 2;
    private const NAME_LENGTH = 3;
    private const NAME = 4;
    private const IDLE = 0;
    private const RUNNING = 1;

    /** The name's first byte (`int64_t *` at cell NAME), made once rather than per task. */
    private readonly \FFI\CData $name;

    /**
     * @param int $index its place in TaskSlots
     * @param \FFI\CData $cells its first cell (`int64_t *`), CELLS of them
     */
    public function __construct(public readonly int $index, private readonly \FFI\CData $cells)
    {
        /** @phpstan-ignore-next-line FFI pointer arithmetic */
        $this->name = $cells + self::NAME;
    }

    /**
     * In the task worker, as a task starts: its name, when it started and when its overrun
     * guard's kill timer fires (microtime; null without one).
     */
    public function start(string $task, float $startedAt, ?float $killAt): void
    {
        $cells = $this->cells;
        $cells[self::STATE] = self::IDLE;
        if (\strlen($task) > self::NAME_BYTES) {
            $task = \substr($task, 0, self::NAME_BYTES - \strlen(self::CUT)) . self::CUT;
        }
        $cells[self::STARTED_AT] = (int) ($startedAt * 1e6);
        $cells[self::KILL_AT] = $killAt === null ? 0 : (int) ($killAt * 1e6);
        $cells[self::NAME_LENGTH] = \strlen($task);
        $name = $this->name; // FFI::memcpy() takes it by reference: not a readonly property
        \FFI::memcpy($name, $task, \strlen($task));
        $cells[self::STATE] = self::RUNNING;
    }

    /** In the task worker, as the task ends (however it ended); in the master, before a fork. */
    public function end(): void
    {
        $cells = $this->cells;
        $cells[self::STATE] = self::IDLE;
    }

    /**
     * In the master: the task running, its start and kill time (microtime; killAt null
     * without a kill timer); null when idle.
     *
     * @return array{task: string, startedAt: float, killAt: ?float}|null
     */
    public function read(): ?array
    {
        $cells = $this->cells;
        if ($cells[self::STATE] !== self::RUNNING) {
            return null;
        }
        $killAt = (int) $cells[self::KILL_AT];

        return [
            'task' => \FFI::string($this->name, \max(0, \min(self::NAME_BYTES, (int) $cells[self::NAME_LENGTH]))),
            'startedAt' => (int) $cells[self::STARTED_AT] / 1e6,
            'killAt' => $killAt === 0 ? null : $killAt / 1e6,
        ];
    }
}
