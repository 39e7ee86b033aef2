<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Petrel\Coroutine\Scheduler;
use Petrel\Http\Request;
use Psr\Log\LoggerInterface;
use Throwable;

/**
 * The process's log: Petrel's own messages (the master's, a worker's, a failed request's)
 * go through here. By default one line each on STDERR (PHP's error log where there is no
 * STDERR, under php-fpm):
 *
 *     [2025-01-31 12:00:00] [pid 4242] [req 4242-17] petrel: GET /users failed: …
 *
 * Every line carries the pid; a line written inside a coroutine (a request runs in a
 * coroutine of its own) also carries the request id: pid and coroutine id, unique for the
 * life of the server, the same id the JSON access log writes. With use(), lines go to a
 * PSR-3 logger instead (message without the prefix; pid, request id and the exception in
 * the context array).
 *
 * Process-wide on purpose (like the scheduler): a worker has one log.
 */
final class Log
{
    private static ?LoggerInterface $logger = null;

    /** Sends every later line to $logger (a PSR-3 logger: Monolog…); null: back to STDERR. */
    public static function use(?LoggerInterface $logger): void
    {
        self::$logger = $logger;
    }

    public static function info(string $message): void
    {
        self::write('info', $message);
    }

    public static function warning(string $message): void
    {
        self::write('warning', $message);
    }

    public static function error(string $message, ?Throwable $error = null): void
    {
        self::write('error', $message, $error);
    }

    /**
     * The default error logger of Http\Server and Web\App: a request's handler threw.
     * "GET /x failed: RuntimeException: why" and the trace.
     */
    public static function requestFailed(Throwable $error, Request $request): void
    {
        self::write('error', "{$request->getMethod()} {$request->getTarget()} failed: " . ($error::class . ': ' . $error->getMessage()), $error);
    }

    /**
     * The request id of the code running now: "pid-coroutine id" inside a coroutine, null
     * outside one (the master, a loop callback).
     */
    public static function requestId(): ?string
    {
        if (\Fiber::getCurrent() === null) {
            return null;
        }
        $coroutine = Scheduler::get()->current();

        return $coroutine !== null ? \getmypid() . '-' . $coroutine->id : null;
    }

    private static function write(string $level, string $message, ?Throwable $error = null): void
    {
        $requestId = self::requestId();
        if (self::$logger !== null) {
            $context = ['pid' => \getmypid()] + ($requestId !== null ? ['request_id' => $requestId] : []) + ($error !== null ? ['exception' => $error] : []);
            self::$logger->log($level, $message, $context);

            return;
        }
        if ($error !== null) {
            $message .= "\n" . self::trace($error);
        }
        self::stderr(\sprintf(
            "[%s] [pid %d]%s petrel: %s\n",
            \date('Y-m-d H:i:s'),
            \getmypid(),
            $requestId !== null ? " [req {$requestId}]" : '',
            $message,
        ));
    }

    /**
     * Writes $line to STDERR; where there is none to PHP's error log: under php-fpm and
     * `php -S` (classic mode) STDERR is not defined, and a daemon (`--daemon`) closed it and
     * pointed the error log at its log file. (fwrite() on the closed STDERR threw: the
     * daemon's master died at its first log line.)
     *
     * @internal for every part that writes lines of its own (the process model, tasks)
     */
    public static function stderr(string $line): void
    {
        if (\defined('STDERR') && \is_resource(\STDERR)) {
            \fwrite(\STDERR, $line);
        } else {
            \error_log(\rtrim($line, "\n"));
        }
    }

    /** Where it was thrown and the stack (the message is already in the line). */
    private static function trace(Throwable $error): string
    {
        $text = "  at {$error->getFile()}:{$error->getLine()}\n" . $error->getTraceAsString();
        while (($error = $error->getPrevious()) !== null) {
            $text .= "\nCaused by {$error}";
        }

        return $text;
    }
}
