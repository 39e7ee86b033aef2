<?php

declare(strict_types=1);

namespace Petrel\Http;

use Closure;

/**
 * What an upgrade handler (Response::upgrade()) hears from the server besides its socket:
 * that the server has begun a graceful stop, so a WebSocket can say goodbye (1001) and
 * finish within the drain timeout instead of being aborted at its end.
 */
final class UpgradeContext
{
    /** @var list<Closure(): void> */
    private array $onStop = [];
    private bool $stopping = false;

    /**
     * Calls $callback once when the server begins a graceful stop (at once if it already
     * has). It runs from the loop or a signal handler: it must not suspend — start a
     * coroutine (Petrel\go()) for anything that waits, like a close handshake.
     *
     * @param Closure(): void $callback
     */
    public function onStop(Closure $callback): void
    {
        if ($this->stopping) {
            $callback();

            return;
        }
        $this->onStop[] = $callback;
    }

    public function isStopping(): bool
    {
        return $this->stopping;
    }

    /** @internal the server is stopping: tells the callbacks, once */
    public function stop(): void
    {
        if ($this->stopping) {
            return;
        }
        $this->stopping = true;
        $callbacks = $this->onStop;
        $this->onStop = [];
        foreach ($callbacks as $callback) {
            $callback();
        }
    }
}
