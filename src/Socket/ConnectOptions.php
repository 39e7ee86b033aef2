<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** How to connect: timeout, TLS, Nagle. Immutable; change with with*(). */
final class ConnectOptions
{
    public function __construct(
        public readonly float $connectTimeout = 10.0,
        public readonly ?TlsOptions $tls = null,
        public readonly bool $noDelay = true,
    ) {
        // NaN too (is_nan(): opcache's optimizer makes !($t >= 0) into $t < 0, false for
        // NaN); INF is fine: no time limit.
        if ($connectTimeout < 0 || \is_nan($connectTimeout)) {
            throw new SocketError("Invalid connectTimeout: expected a number of seconds >= 0 (0: fail unless connected at once), got {$connectTimeout}");
        }
    }

    public function withConnectTimeout(float $seconds): self
    {
        return new self($seconds, $this->tls, $this->noDelay);
    }

    public function withTls(?TlsOptions $tls = new TlsOptions()): self
    {
        return new self($this->connectTimeout, $tls, $this->noDelay);
    }
}
