<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/** Misuse of the coroutine API: joining oneself, defer() outside a coroutine, and so on. */
final class CoroutineError extends \Error
{
}
