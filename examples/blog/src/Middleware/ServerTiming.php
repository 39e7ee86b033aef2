<?php

declare(strict_types=1);

namespace Blog\Middleware;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;

/**
 * Measures how long the rest of the pipeline took and says so in a Server-Timing header
 * (`Server-Timing: app;dur=0.42`, milliseconds), which browsers show in their dev tools.
 * In coroutine mode this is the request's wall time, waits for I/O included.
 */
final class ServerTiming implements Middleware
{
    public const HEADER = 'Server-Timing';

    public function process(Request $request, RequestHandler $next): Response
    {
        $start = \hrtime(true);
        $response = $next->handle($request);

        return $response->withHeader(self::HEADER, \sprintf('app;dur=%.2f', (\hrtime(true) - $start) / 1e6));
    }
}
