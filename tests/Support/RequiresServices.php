<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Closure;

use function Petrel\run;

/**
 * For tests that need something outside PHP (a database server, wrk, gnuplot): without it
 * they are skipped on a developer's machine, and fail in CI, where PETREL_REQUIRE_SERVICES=1
 * says everything was installed and started and nothing may be skipped.
 */
trait RequiresServices
{
    /** Skips the test with $reason, or fails it when PETREL_REQUIRE_SERVICES=1. */
    protected static function skipUnlessRequired(string $reason): never
    {
        if (\getenv('PETREL_REQUIRE_SERVICES') === '1') {
            self::fail("PETREL_REQUIRE_SERVICES=1 but {$reason}");
        }
        self::markTestSkipped($reason);
    }

    /**
     * Why the server in $urlVariable cannot be used: '' when $ping (connect, ping, close;
     * run in a coroutine) succeeds.
     *
     * @param Closure(): void $ping
     */
    protected static function probeService(string $urlVariable, Closure $ping): string
    {
        $url = \getenv($urlVariable);
        if (!\is_string($url) || $url === '') {
            return "{$urlVariable} is not set";
        }
        try {
            run($ping);
        } catch (\Throwable $e) {
            return $e::class . ': ' . $e->getMessage();
        }

        return '';
    }
}
