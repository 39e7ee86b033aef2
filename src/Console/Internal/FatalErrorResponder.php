<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Process\WorkerContext;

/**
 * Outermost request handler of a worker: it remembers which requests are inside the APP
 * (by coroutine) so that, when one of them dies of a fatal error — "Allowed memory size
 * exhausted" above all, which no catch can handle — its client still gets
 * `500 Internal Server Error` instead of a reset connection, one line names the request,
 * and the master restarts the worker at once (it was healthy: no crash back-off).
 *
 * How: a shutdown function runs after the fatal error. The coroutine that was running is
 * still the scheduler's current one (a fatal error skips every `finally`), which names the
 * request; its connection is found among the process's open streams by the client address
 * the request carries (Request::getRemoteAddress(), set by the server from the socket), and
 * the 500 is written there with a blocking write. The handler has not returned, so nothing
 * of its response was written yet. Other in-flight requests of the worker are lost with it.
 *
 * @internal
 */
final class FatalErrorResponder implements RequestHandler
{
    private const FATAL = \E_ERROR | \E_CORE_ERROR | \E_COMPILE_ERROR | \E_PARSE | \E_USER_ERROR;

    /** @var array<int, Request> in-flight requests by the id of their coroutine */
    private array $inFlight = [];

    public function __construct(
        private readonly RequestHandler $next,
        private readonly WorkerContext $context,
        private readonly string $memoryLimit,
    ) {
    }

    public function handle(Request $request): Response
    {
        $id = \spl_object_id(Scheduler::get()->currentOrMain());
        $this->inFlight[$id] = $request;
        try {
            return $this->next->handle($request);
        } finally {
            unset($this->inFlight[$id]);
        }
    }

    public function register(): void
    {
        \register_shutdown_function($this->onShutdown(...));
    }

    private function onShutdown(): void
    {
        $error = \error_get_last();
        if ($error === null || ($error['type'] & self::FATAL) === 0) {
            return;
        }
        @\ini_set('memory_limit', '-1'); // the culprit's memory is still held
        $request = $this->inFlight[\spl_object_id(Scheduler::get()->currentOrMain())]
            ?? (\count($this->inFlight) === 1 ? \reset($this->inFlight) : null);
        if ($request === false || $request === null) {
            return; // not inside a request: a crash, restarted with the usual back-off
        }
        $line = \sprintf('%s %s', $request->getMethod(), $request->getTarget());
        $what = \str_starts_with($error['message'], 'Allowed memory size')
            ? "exceeded memory_limit {$this->memoryLimit}"
            : "died of a fatal error: {$error['message']} in {$error['file']}:{$error['line']}";
        \fwrite(\STDERR, \sprintf("[%s] petrel: worker %d: %s %s; restarting\n", \date('Y-m-d H:i:s'), $this->context->number, $line, $what));
        $this->context->dying("{$line} {$what}");
        self::answer500($request->getRemoteAddress());
    }

    private static function answer500(?string $client): void
    {
        if ($client === null) {
            return;
        }
        foreach (\get_resources('stream') as $stream) {
            if (@\stream_socket_get_name($stream, true) === $client) {
                \stream_set_blocking($stream, true);
                \stream_set_timeout($stream, 1);
                $body = "500 Internal Server Error\n";
                @\fwrite($stream, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " . \strlen($body) . "\r\nConnection: close\r\n\r\n{$body}");

                return;
            }
        }
    }
}
