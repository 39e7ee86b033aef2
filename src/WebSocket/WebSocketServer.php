<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\UpgradeContext;
use Petrel\Socket\Socket;
use Petrel\WebSocket\Internal\Handshake;
use Petrel\WebSocket\Internal\PerMessageDeflate;

use function Petrel\go;

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
     * request that is not a valid handshake, 403 for a browser page of an origin the
     * options do not allow (WebSocketOptions::$allowedOrigins: by default only the
     * server's own). When the handler returns, the connection is closed with 1000 (if it
     * is still open); if it throws, with 1011, and the exception goes on to the server's
     * log — except a ClosedException from sending to this connection's peer that had just
     * closed, which is how connections end (one from another connection is a failure like
     * any other). When the server begins a graceful stop, the connection is closed with
     * 1001 (its handler's receive() returns null).
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
        $forbidden = Handshake::forbidOrigin($request, $options);
        if ($forbidden !== null) {
            return $forbidden;
        }
        [$headers, $deflate, $protocol] = Handshake::agree($request, $options);

        return Response::upgrade(
            $headers,
            static fn (Socket $socket, string $buffered, ?UpgradeContext $context = null) => self::serve($socket, $buffered, $request, $handler, $options, $deflate, $protocol, $context),
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
        ?UpgradeContext $context = null,
    ): void {
        $ws = new WebSocket($socket, true, $options, $deflate, $subprotocol, $buffered);
        // A graceful stop closes with 1001 and the close handshake, within the drain
        // timeout, instead of the abort at its end; the handler's receive() then ends.
        $context?->onStop(static function () use ($ws): void {
            go(static function () use ($ws): void {
                if (!$ws->isClosed()) {
                    $ws->close(CloseCode::GOING_AWAY, 'Server stopping');
                }
            });
        });
        try {
            $handler($ws, $request);
        } catch (\Throwable $error) {
            // A ClosedException with this connection closed: its peer closed while the
            // handler was sending, which is how connections end. Any other (one from sending
            // to another connection, say) is the handler's failure.
            if (!$error instanceof ClosedException || !$ws->isClosed()) {
                $ws->close(CloseCode::INTERNAL_ERROR, 'Internal server error');
                throw $error;
            }
        }
        $ws->close();
    }
}
