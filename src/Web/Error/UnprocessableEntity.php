<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/**
 * 422: the request is well-formed but its content is invalid. Carries the per-field
 * messages, which the renderer shows (as "errors" in JSON, a list in HTML).
 */
class UnprocessableEntity extends HttpError
{
    /**
     * @param array<string, list<string>> $errors field => messages
     * @param array<string, string|list<string>> $headers
     */
    public function __construct(
        private readonly array $errors = [],
        string $publicMessage = '',
        array $headers = [],
        ?Throwable $previous = null,
    ) {
        parent::__construct(422, $publicMessage, $headers, $previous);
    }

    /** @return array<string, list<string>> field => messages */
    public function getErrors(): array
    {
        return $this->errors;
    }
}
