<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 404: The requested resource does not exist. */
class NotFound extends HttpError
{
    /** @param array<string, string|list<string>> $headers */
    public function __construct(string $publicMessage = '', array $headers = [], ?Throwable $previous = null)
    {
        parent::__construct(404, $publicMessage, $headers, $previous);
    }
}
