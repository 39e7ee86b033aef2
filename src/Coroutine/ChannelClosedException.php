<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/** push() on a closed channel, or pop() on a closed channel with nothing left to read. */
final class ChannelClosedException extends \RuntimeException
{
}
