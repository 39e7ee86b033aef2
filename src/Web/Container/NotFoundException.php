<?php

declare(strict_types=1);

namespace Petrel\Web\Container;

use Psr\Container\NotFoundExceptionInterface;

/**
 * The identifier given to get() has no entry: nothing registered, and not a concrete class
 * that could be autowired. (A missing *dependency* of a known entry is a ContainerException,
 * as PSR-11 asks.)
 */
final class NotFoundException extends ContainerException implements NotFoundExceptionInterface
{
}
