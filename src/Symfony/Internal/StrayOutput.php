<?php

declare(strict_types=1);

namespace Petrel\Symfony\Internal;

/**
 * Keeps what an app prints outside its Response (an echo or var_dump() left in a
 * controller, a kernel.terminate listener) out of PHP's output layer, and writes it to the
 * worker's stdout directly instead, where it went before.
 *
 * Why: in a CLI process the first byte that reaches the output layer marks the headers as
 * sent, for the rest of the process — and session_start() refuses to run once they are.
 * One stray echo would make every later request of the worker that uses Symfony's native
 * session fail with a 500 ("Failed to start the session because headers have already been
 * sent"), where php-fpm starts each request afresh.
 *
 * @internal
 */
final class StrayOutput
{
    private const CHUNK = 65536;

    /**
     * Runs $run with its output caught by an output buffer and forwarded to stdout, and
     * leaves output buffering at the level it found (buffers $run left open are flushed
     * through the same way). Should $run end this buffer itself (the php-fpm idiom
     * `while (ob_get_level() > 0) ob_end_flush();`), what it prints next is printed.
     *
     * @template T
     * @param \Closure(): T $run
     * @return T
     */
    public static function forward(\Closure $run): mixed
    {
        $level = \ob_get_level();
        $ended = false;
        \ob_start(static function (string $output, int $phase) use (&$ended): string {
            if ($output !== '' && ($phase & \PHP_OUTPUT_HANDLER_CLEAN) === 0) { // ob_clean() passes what it discards
                self::write($output);
            }
            if (($phase & \PHP_OUTPUT_HANDLER_FINAL) !== 0) {
                $ended = true;
            }

            return '';
        }, self::CHUNK);
        try {
            return $run();
        } finally {
            while (\ob_get_level() > $level) {
                if ($ended) {
                    \ob_end_clean(); // started by $run after it ended ours: flushed, they would print
                } else {
                    \ob_end_flush();
                }
            }
        }
    }

    private static function write(string $output): void
    {
        // php://stdout writes file descriptor 1 (a daemon's log file) past the output layer.
        @\file_put_contents('php://stdout', $output);
    }
}
