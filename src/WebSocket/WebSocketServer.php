<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Socket\Socket;
use Petrel\WebSocket\Internal\Handshake;
use Petrel\WebSocket\Internal\PerMessageDeflate;

/**
 * The server side of the opening handshake, called from an ordinary request handler so
 * that routing, middleware and authentication have run before the upgrade:
 *
 *     return WebSocketServer::upgrade($request, function (WebSocket $ws, Request $request): void {
 *         foreach ($ws as $message) {
 *             $ws->send($message);
 *         }
 *     });
 */
final class WebSocketServer
{
    private function __construct()
    {
    }

    /** Whether $request asks for a WebSocket (Upgrade: websocket), valid or not. */
    public static function isUpgradeRequest(Request $request): bool
    {
        return Handshake::hasToken($request->getHeader('upgrade'), 'websocket');
    }

    /**
     * The 101 response that switches the connection to WebSocket and runs
     * $handler($ws, $request) in the connection's coroutine, or the 400/426 response for a
     * request that is not a valid handshake. When the handler returns, the connection is
     * closed with 1000 (if it is still open); if it throws, with 1011, and the exception
     * goes on to the server's log — except a ClosedException from sending to a peer that
     * had just closed, which is how connections end.
     *
     * @param Closure(WebSocket, Request): void $handler
     */
    public static function upgrade(Request $request, Closure $handler, ?WebSocketOptions $options = null): Response
    {
        $rejection = Handshake::reject($request);
        if ($rejection !== null) {
            return $rejection;
        }
        $options ??= new WebSocketOptions();
        [$headers, $deflate, $protocol] = Handshake::agree($request, $options);

        return Response::upgrade(
            $headers,
            static fn (Socket $socket, string $buffered) => self::serve($socket, $buffered, $request, $handler, $options, $deflate, $protocol),
        );
    }

    /**
     * Runs $handler on an upgraded socket (the part of upgrade() that runs after the 101).
     *
     * @internal public for the Web layer and tests
     * @param Closure(WebSocket, Request): void $handler
     */
    public static function serve(
        Socket $socket,
        string $buffered,
        Request $request,
        Closure $handler,
        WebSocketOptions $options,
        ?PerMessageDeflate $deflate = null,
        ?string $subprotocol = null,
    ): void {
        $ws = new WebSocket($socket, true, $options, $deflate, $subprotocol, $buffered);
        try {
            $handler($ws, $request);
        } catch (ClosedException) {
            // the peer closed while the handler was sending: nothing went wrong here
        } catch (\Throwable $error) {
            $ws->close(CloseCode::INTERNAL_ERROR, 'Internal server error');
            throw $error;
        }
        $ws->close();
    }
}
