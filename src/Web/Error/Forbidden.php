<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 403: The client is known but not allowed to do this. */
class Forbidden extends HttpError
{
    /** @param array<string, string|list<string>> $headers */
    public function __construct(string $publicMessage = '', array $headers = [], ?Throwable $previous = null)
    {
        parent::__construct(403, $publicMessage, $headers, $previous);
    }
}
