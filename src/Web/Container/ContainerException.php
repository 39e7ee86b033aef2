<?php

declare(strict_types=1);

namespace Petrel\Web\Container;

use Psr\Container\ContainerExceptionInterface;

/**
 * An entry could not be resolved: a missing dependency, a circular or captive dependency,
 * a request-scoped service resolved outside a request. The message names the resolution
 * chain ("App\UserController → App\UserRepository → …: reason").
 */
class ContainerException extends \RuntimeException implements ContainerExceptionInterface
{
}
