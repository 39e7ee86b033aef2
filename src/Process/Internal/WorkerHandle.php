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

    public string $state = self::STARTING;
    public string $buffer = '';
    public ?string $error = null;
    /** @var array<string, mixed> */
    public array $status = [];
    public readonly float $startedAt;

    /** @param resource $pipe the master's end of the worker's pipe */
    public function __construct(
        public readonly int $pid,
        public readonly int $number,
        public readonly mixed $pipe,
    ) {
        $this->startedAt = \microtime(true);
    }
}
