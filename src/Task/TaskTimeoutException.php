<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * A task did not finish within its timeout (waiting in the queue included). The submitter
 * stopped waiting; a task still queued is skipped, one already running finishes in its task
 * worker and its result is discarded. One that runs on past the timeout plus
 * TaskServer::OVERRUN_GRACE (2 s) ends its task worker, which the master replaces.
 */
final class TaskTimeoutException extends TaskException
{
}
