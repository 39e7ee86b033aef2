<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\Status;
use Petrel\Observability\Log;
use Petrel\Process\WorkerContext;

/**
 * A worker's answer to a request that dies under it — of a fatal error ("Allowed memory
 * size exhausted" above all, which no catch can handle) or of `exit()` in its handler (or
 * in a coroutine the handler started: Coroutine::$spawnedBy leads back to it), which
 * ends a resident worker as it ends a php-fpm script: its client still gets `500 Internal
 * Server Error` instead of a reset connection, one line names the request and what
 * happened, and the master restarts the worker at once (it was healthy: no crash back-off).
 * The worker's other requests in flight, whose handlers will never return, get `503
 * Service Unavailable` with `Retry-After: 1` (another worker can serve them) instead of a
 * reset. All of them count in the worker's metrics (its last report follows: HttpWorker)
 * and have their access log lines (Server::abandoned()).
 *
 * How: a shutdown function runs after the fatal error or the exit(). The coroutine that was
 * running is still the scheduler's current one (neither runs a `finally`); the server names
 * the request whose handler that coroutine runs (Server::requestsInHandlers(), read from its
 * connections only now: serving a request pays nothing for this). A connection is found
 * among the process's open streams by the client address its request carries
 * (Request::getRemoteAddress(), set by the server from the socket), and the answer is
 * written there with a blocking write. No handler has returned, so nothing of those
 * responses was written yet. A worker that ends on its own (a stop, a recycle) does so in
 * its main context: nothing to answer then.
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
        $fatal = $error !== null && ($error['type'] & self::FATAL) !== 0;
        $running = Scheduler::get()->current();
        if (!$fatal && $running === null) {
            return; // the worker's own end, or exit() outside any coroutine: nothing died in a request
        }
        @\ini_set('memory_limit', '-1'); // the culprit's memory is still held
        $inHandlers = $this->server->requestsInHandlers();
        $answered = [];
        // The request is the one whose handler's coroutine died, or started (spawn(), at any
        // depth) the one that did. A fatal error elsewhere (a destructor, a timer's callback)
        // is the one request's in flight, if there is one; an exit() there is nobody's.
        $culprit = $running !== null ? self::requestOf($running, $inHandlers) : null;
        $culprit ??= $fatal && \count($inHandlers) === 1 ? \array_key_first($inHandlers) : null;
        if ($culprit !== null) {
            $request = $inHandlers[$culprit];
            unset($inHandlers[$culprit]);
            $line = \sprintf('%s %s', $request->getMethod(), $request->getTarget());
            $what = match (true) {
                !$fatal => 'called exit() in ' . ($culprit === $running?->id ? 'its handler' : 'a coroutine its handler started')
                    . ', which ends a resident worker (return a Response instead)',
                \str_starts_with($error['message'], 'Allowed memory size') => "exceeded memory_limit {$this->memoryLimit}",
                default => "died of a fatal error: {$error['message']} in {$error['file']}:{$error['line']}",
            };
            $this->log("{$line} {$what}; restarting");
            $this->context->dying("{$line} {$what}");
            $answered[] = $this->answer($request, 500, '');
        }
        foreach ($inHandlers as $request) {
            $answered[] = $this->answer($request, 503, "Retry-After: 1\r\n");
        }
        if ($inHandlers !== []) {
            $this->log(\sprintf('%d %srequest(s) in flight answered 503: the worker is ending', \count($inHandlers), $culprit !== null ? 'other ' : ''));
        }
        self::linger(\array_values(\array_filter($answered)));
        // Nothing answered outside a request: a crash, restarted with the usual back-off.
    }

    /**
     * The key of $inHandlers that $coroutine is, or that started it through spawn()s (up its
     * still-running ancestors), or null.
     *
     * @param array<int, Request> $inHandlers
     */
    private static function requestOf(Coroutine $coroutine, array $inHandlers): ?int
    {
        $alive = null;
        for ($hops = 0; $hops < 1000; ++$hops) {
            if (isset($inHandlers[$coroutine->id])) {
                return $coroutine->id;
            }
            $parent = $coroutine->spawnedBy;
            if ($parent === null || $parent === 0) {
                return null;
            }
            $alive ??= Scheduler::get()->coroutines();
            if (!isset($alive[$parent])) {
                return null; // an ancestor has ended: the chain is lost
            }
            $coroutine = $alive[$parent];
        }

        return null;
    }

    private function log(string $message): void
    {
        Log::stderr(\sprintf("[%s] petrel: worker %d: %s\n", \date('Y-m-d H:i:s'), $this->context->number, $message));
    }

    /**
     * Writes the answer on $request's connection, found by its client address, and counts
     * and logs it; returns the connection, or null if it is gone.
     *
     * @return resource|null
     */
    private function answer(Request $request, int $status, string $headers): mixed
    {
        $line = "{$status} " . Status::reasonPhrase($status);
        $body = "{$line}\n";
        $this->server->abandoned($request, Response::text($body, $status));
        $client = $request->getRemoteAddress();
        if ($client === null) {
            return null;
        }
        foreach (\get_resources('stream') as $stream) {
            if (@\stream_socket_get_name($stream, true) === $client) {
                \stream_set_blocking($stream, true);
                \stream_set_timeout($stream, 1);
                @\fwrite($stream, "HTTP/1.1 {$line}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " . \strlen($body) . "\r\n{$headers}Connection: close\r\n\r\n{$body}");

                return $stream;
            }
        }

        return null;
    }

    /**
     * Ends the answered connections as the server does (a lingering close): the write side
     * first, then what the clients still send is read and dropped until they close, for a
     * second at most in all. Closed with bytes unread (a body, a pipelined request), a socket
     * sends a reset, which can destroy the answer before the client reads it.
     *
     * @param list<resource> $streams
     */
    private static function linger(array $streams): void
    {
        foreach ($streams as $stream) {
            @\stream_socket_shutdown($stream, \STREAM_SHUT_WR);
            \stream_set_blocking($stream, false);
        }
        $deadline = \microtime(true) + 1.0;
        while ($streams !== [] && \microtime(true) < $deadline) {
            foreach ($streams as $i => $stream) {
                while (($data = @\fread($stream, 65536)) !== false && $data !== '') {
                    // dropped
                }
                if ($data === false || \feof($stream)) {
                    unset($streams[$i]);
                }
            }
            if ($streams !== []) {
                \usleep(10_000);
            }
        }
    }
}
