<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * The task worker running the task died before replying (a fatal error, exit(), a signal,
 * a crash). The message names the task, the worker's pid and how it died as far as it is
 * known here; the master replaces the worker and logs its exit status.
 */
final class TaskWorkerDiedException extends TaskException
{
}
