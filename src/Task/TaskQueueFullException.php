<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * The task was refused at once: this process already has as many tasks queued or running
 * as the queue bound allows (--task-queue), or the task workers' accept queue is full.
 * Nothing was sent; answering 503 is usually right.
 */
final class TaskQueueFullException extends TaskException
{
}
