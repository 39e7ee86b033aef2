<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/**
 * Limits and behaviour of WebSocket connections, server and client side. Immutable:
 * with*() return modified copies; the defaults are safe for a public endpoint.
 */
final class WebSocketOptions
{
    public const DEFAULT_MAX_MESSAGE_SIZE = 16 << 20;

    /**
     * @param int $maxMessageSize bytes of a whole received message (inflated size when
     *        compressed); a bigger one closes the connection with 1009
     * @param int $maxFrameSize bytes of one received frame's payload (1009 when exceeded)
     * @param bool $compression offer (client) or accept (server) permessage-deflate
     * @param int $compressionThreshold messages shorter than this are sent uncompressed
     * @param float|null $idleTimeout seconds without any byte from the peer after which a
     *        ping is sent; if nothing comes back within as long again, the connection is
     *        closed (1001). null: never
     * @param float $closeTimeout seconds close() waits for the peer's close frame
     * @param list<string> $subprotocols server: the ones it speaks, in order of preference;
     *        client: the ones it offers
     * @param int|null $outgoingFrameSize split sent messages into frames of at most this
     *        many payload bytes; null: one frame per message
     * @param float $handshakeTimeout client: seconds for connecting and the opening handshake
     * @param list<string> $allowedOrigins server: pages of which other origins may open the
     *        connection, as a browser sends them ("https://app.example.com": no path, no
     *        default port; "*": any). A browser sends its page's Origin, and the site's
     *        cookies whatever the page: without this check another site's page could open
     *        a WebSocket as the signed-in user (cross-site WebSocket hijacking). The
     *        request's own host (Origin's host is Host's, any port) and clients that send no
     *        Origin (not browsers) are always let in; any other is answered 403
     */
    public function __construct(
        public readonly int $maxMessageSize = self::DEFAULT_MAX_MESSAGE_SIZE,
        public readonly int $maxFrameSize = self::DEFAULT_MAX_MESSAGE_SIZE,
        public readonly bool $compression = true,
        public readonly int $compressionThreshold = 64,
        public readonly ?float $idleTimeout = 60.0,
        public readonly float $closeTimeout = 5.0,
        public readonly array $subprotocols = [],
        public readonly ?int $outgoingFrameSize = null,
        public readonly float $handshakeTimeout = 10.0,
        public readonly array $allowedOrigins = [],
    ) {
        if ($maxMessageSize < 1 || $maxFrameSize < 1) {
            throw new WebSocketError('Message and frame size limits must be at least 1 byte');
        }
        $timeouts = ['idleTimeout' => $idleTimeout, 'closeTimeout' => $closeTimeout, 'handshakeTimeout' => $handshakeTimeout];
        foreach (\array_filter($timeouts, \is_float(...)) as $name => $seconds) { // a null idleTimeout: none
            if (\is_nan($seconds) || $seconds <= 0) { // NaN passes "<= 0" and breaks the timers later
                throw new WebSocketError("Timeouts must be positive; {$name} is {$seconds}");
            }
        }
        if ($outgoingFrameSize !== null && $outgoingFrameSize < 1) {
            throw new WebSocketError('The outgoing frame size must be at least 1 byte');
        }
        foreach ($allowedOrigins as $origin) {
            if ($origin !== '*' && \preg_match('~^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+$~D', $origin) !== 1) {
                throw new WebSocketError("Invalid allowed origin \"{$origin}\": scheme://host[:port], without a path, or \"*\"");
            }
        }
        foreach ($subprotocols as $protocol) {
            if (\preg_match('/^[!#$%&\'*+\-.^_`|~0-9A-Za-z]+$/D', $protocol) !== 1) {
                throw new WebSocketError("Invalid subprotocol name: {$protocol}");
            }
        }
    }

    public function withMaxMessageSize(int $bytes): self
    {
        return $this->with(['maxMessageSize' => $bytes]);
    }

    public function withMaxFrameSize(int $bytes): self
    {
        return $this->with(['maxFrameSize' => $bytes]);
    }

    public function withCompression(bool $enabled, ?int $threshold = null): self
    {
        return $this->with(['compression' => $enabled, 'compressionThreshold' => $threshold ?? $this->compressionThreshold]);
    }

    public function withIdleTimeout(?float $seconds): self
    {
        return $this->with(['idleTimeout' => $seconds]);
    }

    public function withCloseTimeout(float $seconds): self
    {
        return $this->with(['closeTimeout' => $seconds]);
    }

    /** @param list<string> $subprotocols */
    public function withSubprotocols(array $subprotocols): self
    {
        return $this->with(['subprotocols' => $subprotocols]);
    }

    public function withOutgoingFrameSize(?int $bytes): self
    {
        return $this->with(['outgoingFrameSize' => $bytes]);
    }

    public function withHandshakeTimeout(float $seconds): self
    {
        return $this->with(['handshakeTimeout' => $seconds]);
    }

    /** Server: other origins whose pages may connect, besides the request's own host ("*": any); see the constructor. */
    public function withAllowedOrigins(string ...$origins): self
    {
        return $this->with(['allowedOrigins' => \array_values($origins)]);
    }

    /** @param array<string, mixed> $changes */
    private function with(array $changes): self
    {
        return new self(...[...\get_object_vars($this), ...$changes]);
    }
}
