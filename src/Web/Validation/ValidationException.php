<?php

declare(strict_types=1);

namespace Petrel\Web\Validation;

use Petrel\Web\Error\UnprocessableEntity;

/**
 * Input failed validation. An UnprocessableEntity, so left uncaught it becomes a 422 whose
 * body lists the messages per field (JSON "errors", or a list on the HTML page).
 */
final class ValidationException extends UnprocessableEntity
{
    /** @param array<string, list<string>> $errors field => messages */
    public function __construct(array $errors, string $publicMessage = 'The given data was invalid.')
    {
        parent::__construct($errors, $publicMessage);
    }

    /** @return array<string, list<string>> field => messages, e.g. ['email' => ['The email field must be a valid email address.']] */
    public function errors(): array
    {
        return $this->getErrors();
    }
}
