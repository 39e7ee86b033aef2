<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Symfony;

use Petrel\Tests\Support\RequiresServices;

/** Symfony comes with Petrel's dev dependencies; without them (composer install --no-dev) these tests skip. */
trait SkipsWithoutSymfony
{
    use RequiresServices;

    protected static function requireSymfony(): void
    {
        if (!\class_exists(\Symfony\Component\HttpKernel\Kernel::class) || !\class_exists(\Symfony\Bundle\FrameworkBundle\FrameworkBundle::class)) {
            self::skipUnlessRequired('Symfony is not installed: run `composer install` with dev dependencies');
        }
    }
}
