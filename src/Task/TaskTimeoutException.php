<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * A task did not finish within its timeout (waiting in the queue included). The submitter
 * stopped waiting; a task still queued is skipped, one already running finishes in its task
 * worker and its result is discarded.
 */
final class TaskTimeoutException extends TaskException
{
}
