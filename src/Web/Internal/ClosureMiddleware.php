<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;
use Petrel\Web\Routing\HandlerError;

/** @internal a Closure(Request, RequestHandler): Response used as middleware */
final class ClosureMiddleware implements Middleware
{
    public function __construct(private readonly Closure $closure)
    {
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $response = ($this->closure)($request, $next);
        if (!$response instanceof Response) {
            $function = new \ReflectionFunction($this->closure);
            throw new HandlerError(\sprintf(
                'The middleware closure at %s:%d returned %s instead of a %s',
                $function->getFileName(),
                $function->getStartLine(),
                \get_debug_type($response),
                Response::class,
            ));
        }

        return $response;
    }
}
