<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

use Closure;

/**
 * A registered entry: how long its instances live and how to build one (null factory: autowire
 * the id, which is then a concrete class).
 *
 * @internal
 */
final readonly class Definition
{
    public function __construct(
        public Lifetime $lifetime,
        public ?Closure $factory = null,
        public ?Closure $dispose = null,
    ) {
    }
}
