<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 409: The request conflicts with the current state of the resource. */
class Conflict extends HttpError
{
    /** @param array<string, string|list<string>> $headers */
    public function __construct(string $publicMessage = '', array $headers = [], ?Throwable $previous = null)
    {
        parent::__construct(409, $publicMessage, $headers, $previous);
    }
}
