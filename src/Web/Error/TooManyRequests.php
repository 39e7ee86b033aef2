<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 429: rate limited; $retryAfter seconds (when given) is sent as Retry-After. */
class TooManyRequests extends HttpError
{
    public function __construct(?int $retryAfter = null, string $publicMessage = '', ?Throwable $previous = null)
    {
        if ($retryAfter !== null && $retryAfter < 0) {
            throw new \ValueError('Retry-After must not be negative');
        }
        parent::__construct(429, $publicMessage, $retryAfter === null ? [] : ['Retry-After' => (string) $retryAfter], $previous);
    }
}
