<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

/**
 * ArrayAccess for the attribute tests: offset 'name' exists and reads 'offset', so a
 * template that shows 'offset' for `{{ v.name }}` asked the offset first, as Twig does.
 */
trait OffsetName
{
    public function offsetExists(mixed $offset): bool
    {
        return $offset === 'name';
    }

    public function offsetGet(mixed $offset): mixed
    {
        return 'offset';
    }

    public function offsetSet(mixed $offset, mixed $value): void
    {
    }

    public function offsetUnset(mixed $offset): void
    {
    }
}
