<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Http\Server;
use Petrel\Observability\Log;
use Petrel\Process\WorkerContext;

/**
 * A worker's answer to a request that dies of a fatal error — "Allowed memory size
 * exhausted" above all, which no catch can handle: its client still gets
 * `500 Internal Server Error` instead of a reset connection, one line names the request,
 * and the master restarts the worker at once (it was healthy: no crash back-off).
 *
 * How: a shutdown function runs after the fatal error. The coroutine that was running is
 * still the scheduler's current one (a fatal error skips every `finally`); the server
 * names the request whose handler that coroutine runs (Server::requestsInHandlers(), read
 * from its connections only now: serving a request pays nothing for this). Its connection
 * is found among the process's open streams by the client address the request carries
 * (Request::getRemoteAddress(), set by the server from the socket), and the 500 is written
 * there with a blocking write. The handler has not returned, so nothing of its response
 * was written yet. Other in-flight requests of the worker are lost with it.
 *
 * @internal
 */
final class FatalErrorResponder
{
    private const FATAL = \E_ERROR | \E_CORE_ERROR | \E_COMPILE_ERROR | \E_PARSE | \E_USER_ERROR;

    public function __construct(
        private readonly Server $server,
        private readonly WorkerContext $context,
        private readonly string $memoryLimit,
    ) {
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
        $inHandlers = $this->server->requestsInHandlers();
        $request = $inHandlers[Scheduler::get()->currentOrMain()->id]
            ?? (\count($inHandlers) === 1 ? \reset($inHandlers) : null);
        if ($request === false || $request === null) {
            return; // not inside a request: a crash, restarted with the usual back-off
        }
        $line = \sprintf('%s %s', $request->getMethod(), $request->getTarget());
        $what = \str_starts_with($error['message'], 'Allowed memory size')
            ? "exceeded memory_limit {$this->memoryLimit}"
            : "died of a fatal error: {$error['message']} in {$error['file']}:{$error['line']}";
        Log::stderr(\sprintf("[%s] petrel: worker %d: %s %s; restarting\n", \date('Y-m-d H:i:s'), $this->context->number, $line, $what));
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
