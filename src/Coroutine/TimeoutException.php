<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/** A deadline expired: thrown by the call that was (or would be) suspended at that moment. */
final class TimeoutException extends CancelledException
{
}
