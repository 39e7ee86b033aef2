<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;

/** Records its label on the way in (request attribute "trace") and out (header X-Out). */
class TraceMiddleware implements Middleware
{
    public function __construct(private readonly string $label = 'trace')
    {
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $trace = $request->getAttribute('trace', []);
        \assert(\is_array($trace));
        $trace[] = $this->label;

        return $next->handle($request->withAttribute('trace', $trace))->withAddedHeader('X-Out', $this->label);
    }
}
