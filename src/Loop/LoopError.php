<?php

declare(strict_types=1);

namespace Petrel\Loop;

/** Misuse of the event loop: a nested run(), a bad argument, a closed stream still watched. */
final class LoopError extends \Error
{
}
