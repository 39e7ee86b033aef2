<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

/** A JsonSerializable return value. */
final class Item implements \JsonSerializable
{
    public function __construct(private readonly int $id)
    {
    }

    /** @return array{id: int} */
    public function jsonSerialize(): array
    {
        return ['id' => $this->id];
    }
}
