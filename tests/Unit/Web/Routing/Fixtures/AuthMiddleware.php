<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

/** A middleware the App resolves from the container by class name. */
final class AuthMiddleware extends TraceMiddleware
{
    public static int $instances = 0;

    public function __construct()
    {
        ++self::$instances;
        parent::__construct('auth');
    }
}
