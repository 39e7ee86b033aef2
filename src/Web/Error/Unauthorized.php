<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 401: Authentication is required (send WWW-Authenticate in $headers for HTTP auth schemes). */
class Unauthorized extends HttpError
{
    /** @param array<string, string|list<string>> $headers */
    public function __construct(string $publicMessage = '', array $headers = [], ?Throwable $previous = null)
    {
        parent::__construct(401, $publicMessage, $headers, $previous);
    }
}
