<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Petrel\Http\Status;
use Throwable;

/**
 * Throw anywhere while handling a request to answer with this status: the App's
 * ErrorRenderer turns it into an HTML or JSON error page showing the public message (never
 * the previous exception, which stays for logs). Subclasses name the common cases.
 *
 * Not a programmer error despite the name: it is the web layer's "stop here and answer
 * with this status", so it extends \RuntimeException.
 */
class HttpError extends \RuntimeException
{
    private readonly int $status;

    private readonly string $publicMessage;

    /** @var array<string, string|list<string>> */
    private readonly array $headers;

    /**
     * @param int $status 400–599
     * @param string $publicMessage shown to the client; '' for the reason phrase
     * @param array<string, string|list<string>> $headers added to the error response
     * @throws \ValueError for a status outside 400–599
     */
    public function __construct(int $status, string $publicMessage = '', array $headers = [], ?Throwable $previous = null)
    {
        if ($status < 400 || $status > 599) {
            throw new \ValueError(\sprintf('HttpError status must be 4xx or 5xx, got %d', $status));
        }
        $this->status = $status;
        $this->publicMessage = $publicMessage !== '' ? $publicMessage : (Status::reasonPhrase($status) ?: 'Error');
        $this->headers = $headers;
        parent::__construct($this->publicMessage, $status, $previous);
    }

    public function getStatus(): int
    {
        return $this->status;
    }

    /** The message meant for the client (plain text; the renderer escapes it). */
    public function getPublicMessage(): string
    {
        return $this->publicMessage;
    }

    /** @return array<string, string|list<string>> */
    public function getHeaders(): array
    {
        return $this->headers;
    }
}
