<?php

declare(strict_types=1);

namespace Petrel\Http\Psr\Internal;

use Nyholm\Psr7\Response as PsrResponse;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamInterface;

/**
 * A PSR-7 response made by PsrConverter::toPsrResponse(), and every copy its with*() make:
 * they all carry the same lineage, so the bridge can tell a response a middleware made
 * from the inner one (re-headed, its body replaced, its status changed) from one it built
 * itself, and keep for the first what PSR-7 cannot carry (Cookie objects, after-send
 * callbacks, the rendered error).
 *
 * A decorator of nyholm's response because nothing else survives its with*(): they clone
 * the response and replace a field, so a WeakMap keyed by the response loses it at the
 * first withHeader(), and no object of ours is shared by the clones once withBody() has
 * replaced the stream; PHP 8.2 deprecates dynamic properties; extending nyholm's class is
 * ruled out by its @final (Symfony's DebugClassLoader reports it); a marker header could
 * reach the client, and be copied into a response built from scratch. Here each with*()
 * wraps nyholm's result with the same lineage, and a response built any other way (a
 * PSR-17 factory, `new`) has none, whatever headers it copied.
 *
 * The lineage is an empty object, only compared by identity, rather than the Petrel
 * response: a copy a cache middleware keeps (or serializes) holds no reference to that
 * response, its callbacks and its body. Whoever compares checks it against the response
 * it handed out for this very call (PsrConverter::descendsFrom()), so a copy kept from
 * another request does not match.
 *
 * The price: an object more per with*() and a call more per getter, ~5k instructions a
 * PSR-15 middleware and request (callgrind, a middleware adding a header: 74k → 79k).
 *
 * @internal
 */
final class ConvertedResponse implements ResponseInterface
{
    private function __construct(private readonly PsrResponse $response, private readonly object $lineage)
    {
    }

    /** A response of a lineage of its own. */
    public static function of(PsrResponse $response): self
    {
        return new self($response, new \stdClass());
    }

    /** Whether this response is $other, or a with*() copy of it or of what it was copied from. */
    public function sharesLineageWith(self $other): bool
    {
        return $this->lineage === $other->lineage;
    }

    /** nyholm's with*() return the response itself when nothing changes: so does this. */
    private function copy(PsrResponse $response): self
    {
        return $response === $this->response ? $this : new self($response, $this->lineage);
    }

    public function getProtocolVersion(): string
    {
        return $this->response->getProtocolVersion();
    }

    public function withProtocolVersion(string $version): self
    {
        return $this->copy($this->response->withProtocolVersion($version));
    }

    public function getHeaders(): array
    {
        return $this->response->getHeaders();
    }

    public function hasHeader(string $name): bool
    {
        return $this->response->hasHeader($name);
    }

    public function getHeader(string $name): array
    {
        return $this->response->getHeader($name);
    }

    public function getHeaderLine(string $name): string
    {
        return $this->response->getHeaderLine($name);
    }

    public function withHeader(string $name, $value): self
    {
        return $this->copy($this->response->withHeader($name, $value));
    }

    public function withAddedHeader(string $name, $value): self
    {
        return $this->copy($this->response->withAddedHeader($name, $value));
    }

    public function withoutHeader(string $name): self
    {
        return $this->copy($this->response->withoutHeader($name));
    }

    public function getBody(): StreamInterface
    {
        return $this->response->getBody();
    }

    public function withBody(StreamInterface $body): self
    {
        return $this->copy($this->response->withBody($body));
    }

    public function getStatusCode(): int
    {
        return $this->response->getStatusCode();
    }

    public function withStatus(int $code, string $reasonPhrase = ''): self
    {
        return $this->copy($this->response->withStatus($code, $reasonPhrase));
    }

    public function getReasonPhrase(): string
    {
        return $this->response->getReasonPhrase();
    }
}
