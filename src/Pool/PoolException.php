<?php

declare(strict_types=1);

namespace Petrel\Pool;

/** A pool could not hand out a connection: closed, or exhausted. */
class PoolException extends \RuntimeException
{
}
