<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

/**
 * An object whose `{{ object.name }}` templates compiled by View read with one method call
 * (ShortcutGetAttrExpression) instead of Twig's isset() and property read, which for an
 * object with magic __isset() and __get() are two magic calls: ~1,580 instructions against
 * ~900 (a Petrel\Web\Model attribute, callgrind).
 *
 * @internal implemented by Petrel\Web\Model\Model
 */
interface DirectAttributes
{
    /**
     * The value Twig would print for `{{ object.name }}`, or AttributeMiss::Miss to have
     * Twig look it up itself. Only a value Twig's own lookup would find first (the public
     * or magic property $name, as isset() and a read see it): when in doubt, Miss.
     */
    public function directAttribute(string $name): mixed;
}
