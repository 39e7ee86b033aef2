<?php

declare(strict_types=1);

namespace Petrel\Web\Container;

/** Misuse at registration time, e.g. singleton() without a factory for an interface. */
final class ContainerError extends \LogicException
{
}
