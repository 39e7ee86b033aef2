<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Psr\Container\NotFoundExceptionInterface;

/** @internal FallbackContainer's PSR-11 "not found". */
final class ServiceNotFound extends \RuntimeException implements NotFoundExceptionInterface
{
}
