<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Psr\Container\NotFoundExceptionInterface;

/** MinimalContainer's PSR-11 "not found". */
final class MinimalContainerNotFound extends \RuntimeException implements NotFoundExceptionInterface
{
}
