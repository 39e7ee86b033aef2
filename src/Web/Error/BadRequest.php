<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 400: The request is malformed. */
class BadRequest extends HttpError
{
    /** @param array<string, string|list<string>> $headers */
    public function __construct(string $publicMessage = '', array $headers = [], ?Throwable $previous = null)
    {
        parent::__construct(400, $publicMessage, $headers, $previous);
    }
}
