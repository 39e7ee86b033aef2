<?php

declare(strict_types=1);

namespace App\Service;

/** A plain service (no database): builds greetings. Stateless, so shared safely. */
final class Greeter
{
    public function greet(string $name): string
    {
        $name = \trim($name);

        return \sprintf('Hello, %s!', $name === '' ? 'World' : $name);
    }
}
