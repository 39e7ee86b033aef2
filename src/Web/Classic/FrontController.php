<?php

declare(strict_types=1);

namespace Petrel\Web\Classic;

use Closure;
use Petrel\Coroutine\Scheduler;
use Petrel\Http\Handlers;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Loop\StreamSelectDriver;
use Throwable;

use function Petrel\run;

/**
 * Classic mode: one request per script run, the way php-fpm and `php -S` work.
 *
 *     // public/index.php
 *     Petrel\Web\Classic\FrontController::serve(static fn () => require __DIR__ . '/../app.php');
 *
 * Builds the Request from the superglobals, boots the app, handles the request and sends
 * the response — all inside Petrel\run(), so the app's coroutine clients (database, Redis,
 * sleep) work as they do in a worker, and connections leased during the request go back
 * (and are closed with the process) at its end. $boot returns what an APP file returns: a
 * Petrel\Web\App, a Closure(Request): Response, a Petrel or PSR-15 handler. The loop is
 * the stream_select() driver whatever PETREL_DRIVER says (that is for the server's workers).
 *
 * A failure to boot is a 500 (logged with error_log(), no details to the client); errors
 * inside the App are rendered by the App itself.
 */
final class FrontController
{
    /** @param Closure(): mixed $boot */
    public static function serve(Closure $boot): void
    {
        // One request waits on a few sockets at most: stream_select() is enough, and it works
        // everywhere. PETREL_DRIVER is for the server's workers; honoured here, "epoll" under
        // php-fpm (FFI off by default) failed every request with an empty 500.
        Scheduler::reset(new StreamSelectDriver());
        run(static function () use ($boot): void {
            $request = GlobalsRequest::fromGlobals();
            try {
                $response = Handlers::from($boot(), 'the app')->handle($request);
            } catch (Throwable $error) {
                \error_log(\sprintf('petrel classic: %s %s failed: %s', $request->getMethod(), $request->getTarget(), $error));
                $response = Response::text("500 Internal Server Error\n", 500);
            }
            SapiEmitter::emit($response, $request);
            self::afterSend($response, $request);
        });
    }

    /**
     * A response's after-send callbacks (Response::withAfterSend()) run once the client
     * has its response: after fastcgi_finish_request() under php-fpm; elsewhere (php -S,
     * Apache's mod_php) the output is flushed and they run before the request ends. One
     * that throws is logged and the others still run, as in a worker.
     */
    private static function afterSend(Response $response, Request $request): void
    {
        $callbacks = $response->getAfterSend();
        if ($callbacks === []) {
            return;
        }
        if (\function_exists('fastcgi_finish_request')) {
            \fastcgi_finish_request();
        } else {
            \flush();
        }
        foreach ($callbacks as $callback) {
            try {
                $callback();
            } catch (Throwable $error) {
                \error_log(\sprintf('petrel classic: after %s %s: %s', $request->getMethod(), $request->getTarget(), $error));
            }
        }
    }
}
