<?php

declare(strict_types=1);

namespace Petrel\Process;

/** The process model could not start or run: fork failed, a worker could not boot. */
final class ProcessException extends \RuntimeException
{
}
