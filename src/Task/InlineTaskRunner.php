<?php

declare(strict_types=1);

namespace Petrel\Task;

use Petrel\Task\Internal\TaskCodec;
use Petrel\Task\Internal\TaskExecutor;

/**
 * Runs tasks in the calling process, for tests and CLI scripts (Tasks::inline()). The same
 * checks as with task workers (the task must be an invokable class or a function; the
 * arguments and the result must survive serialize()), so what works inline works in a
 * server; but the task blocks the caller, the queue bound does not apply and the timeout is
 * not enforced (blocking code cannot be interrupted in-process).
 */
final class InlineTaskRunner implements TaskRunner
{
    private readonly TaskExecutor $executor;

    public function __construct()
    {
        $this->executor = new TaskExecutor();
    }

    public function run(string $task, array $args = [], ?float $timeout = null): mixed
    {
        TaskExecutor::check($task);
        $frame = TaskCodec::encodeRequest($task, $args, \microtime(true) + ($timeout ?? 60.0));
        $request = TaskCodec::decodeRequest(\substr($frame, TaskCodec::HEADER_BYTES));
        $result = $this->executor->run($request->task, $request->args);
        [, $result] = TaskCodec::decodeReply(\substr(TaskCodec::encodeReply(TaskCodec::RESULT, $result), TaskCodec::HEADER_BYTES));

        return $result;
    }
}
