<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * A task failed at run time. Thrown as is for a transport failure; thrown in place of an
 * exception the task threw when that exception cannot be rebuilt in the submitter (its
 * class is unknown here, or it could not be serialized): then $originalClass names the
 * task's exception class and $remoteTrace is the task worker's trace as text.
 */
class TaskException extends \RuntimeException
{
    public function __construct(
        string $message,
        int $code = 0,
        ?\Throwable $previous = null,
        public readonly ?string $originalClass = null,
        public readonly ?string $remoteTrace = null,
    ) {
        parent::__construct($message, $code, $previous);
    }
}
