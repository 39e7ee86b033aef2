<?php

declare(strict_types=1);

namespace Petrel\Pool;

/** Every connection stayed busy for the whole acquire timeout. */
final class PoolExhaustedException extends PoolException
{
}
