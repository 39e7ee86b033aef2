<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

use Petrel\Web\Error\NotFound;

/**
 * findOrFail() or refresh() found no row. A NotFound HttpError, so a request that lets it
 * escape is answered 404 ("User not found"); the key stays out of the public message.
 */
final class ModelNotFoundException extends NotFound
{
    /** @param class-string<Model> $model */
    public function __construct(
        public readonly string $model,
        public readonly int|string|null $key,
    ) {
        parent::__construct(\substr((string) \strrchr('\\' . $model, '\\'), 1) . ' not found');
    }
}
