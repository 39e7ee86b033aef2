<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Socket\Socket;

/**
 * The socket of one HTTP server connection: a Socket plus the few probes the connection's
 * hot path uses. Implemented over a real stream by ClientSocket and in memory by
 * MemorySocket (tests).
 *
 * @internal
 */
interface ConnectionSocket extends Socket
{
    /**
     * Calls $callback once, from the loop, when a read will not block (bytes have arrived,
     * or EOF), without reading and without a coroutine waiting: for a keep-alive connection
     * right after a response is written, when the client has not even seen it, so a read
     * would come back empty and cost a syscall to learn it. Closing the socket forgets it.
     * $callback is passed whether other stream callbacks may follow it in the loop's tick
     * (Loop\Driver's $more hint; true when the socket cannot tell).
     *
     * @param \Closure(bool): void $callback
     * @throws \Petrel\Socket\ClosedException if the socket is closed
     */
    public function whenReadable(\Closure $callback): void;

    /**
     * Whether the peer has closed or reset the connection. Never waits, never consumes
     * bytes; a peer that sent nothing more has not closed.
     */
    public function peerClosed(): bool;
}
