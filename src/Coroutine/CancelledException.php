<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/** Thrown at the suspension point of a cancelled coroutine. */
class CancelledException extends \RuntimeException
{
}
