<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

/**
 * An object that can tell, for `{{ object.name|date(format) }}`, the string a date attribute
 * was stored as, before it is made a DateTimeInterface: what that prints depends on the
 * string, the default timezone it is read in, Twig's timezone and the format only, so
 * ShortcutDateExtension prints it again from memory, with no object parsed (a clone of a
 * parsed one, ~2,000 instructions) and none converted to Twig's timezone.
 *
 * @internal implemented by Petrel\Web\Model\Model
 */
interface StoredDates extends DirectAttributes
{
    /**
     * The string the attribute $name holds while it waits to be converted to a
     * DateTimeImmutable by `new DateTimeImmutable($string)` in the default timezone (a date
     * loaded from a row and not read yet), if directAttribute($name) would return that
     * object. Null in any other case (already converted, set by code,
     * not a date, a value Twig finds elsewhere).
     */
    public function storedDate(string $name): ?string;
}
