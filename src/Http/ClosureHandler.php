<?php

declare(strict_types=1);

namespace Petrel\Http;

use Closure;

/** Adapts a closure taking a Request and returning a Response. */
final class ClosureHandler implements RequestHandler
{
    /** @param Closure(Request): Response $handler */
    public function __construct(private readonly Closure $handler)
    {
    }

    public function handle(Request $request): Response
    {
        $response = ($this->handler)($request);
        if (!$response instanceof Response) {
            throw new \UnexpectedValueException(\sprintf(
                'The request handler must return a %s, it returned %s',
                Response::class,
                \get_debug_type($response),
            ));
        }

        return $response;
    }
}
