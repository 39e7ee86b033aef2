<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/**
 * The main context waits for something that nothing can ever deliver. The message lists the
 * suspended coroutines and where each one waits.
 */
final class DeadlockError extends \Error
{
}
