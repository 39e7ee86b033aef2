<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class WithOptionals
{
    /** @param array<string, mixed> $options */
    public function __construct(
        public readonly ?SystemClock $nullableConcrete,
        public readonly ?Logger $nullableInterface,
        public readonly ?string $nullableScalar,
        public readonly int $retries = 3,
        public readonly ?SystemClock $defaultedClock = null,
        public readonly array $options = [],
    ) {
    }
}
