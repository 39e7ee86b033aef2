<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

/** @internal */
enum Lifetime
{
    /** One instance per container (per worker), built on first use. */
    case Singleton;
    /** One instance per request scope. */
    case Scoped;
    /** A new instance on every resolution. */
    case Transient;
}
