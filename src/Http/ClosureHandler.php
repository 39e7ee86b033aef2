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

    /**
     * @internal for Server: the closure itself when it declares that it returns a
     * Response, so that the engine checks what it returns and the server calls it
     * without handle()'s frame (a call less per request); null otherwise.
     */
    public function typedClosure(): ?Closure
    {
        $type = (new \ReflectionFunction($this->handler))->getReturnType();

        return $type instanceof \ReflectionNamedType && $type->getName() === Response::class && !$type->allowsNull()
            ? $this->handler
            : null;
    }
}
