<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

/**
 * Misuse of a model: no database set, an unknown cast, a value that cannot take its
 * attribute's cast (for example "abc" for an int), saving a model without a primary key.
 */
final class ModelError extends \Error
{
}
