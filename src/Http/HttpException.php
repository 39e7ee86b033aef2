<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * A request could not be accepted. Carries the status the server should answer with
 * (400, 413, 414, 431, 501, 505, …); after a parse failure the connection answers and
 * closes, because the byte stream can no longer be trusted.
 */
final class HttpException extends \RuntimeException
{
    private readonly int $status;

    public function __construct(int $status, string $reason = '', ?\Throwable $previous = null)
    {
        if ($status < 400 || $status > 599) {
            throw new \ValueError(sprintf('HttpException status must be 4xx or 5xx, got %d', $status));
        }
        $this->status = $status;
        parent::__construct($reason !== '' ? $reason : Status::reasonPhrase($status), $status, $previous);
    }

    public function getStatus(): int
    {
        return $this->status;
    }

    /** Short reason, safe to show to the client (never contains request bytes). */
    public function getReason(): string
    {
        return $this->getMessage();
    }
}
