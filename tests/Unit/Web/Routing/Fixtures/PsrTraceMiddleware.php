<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * PSR-15 middleware: in "trace" mode it behaves like TraceMiddleware (changes the request
 * and the response); in "pass" mode it hands both through untouched.
 */
final class PsrTraceMiddleware implements MiddlewareInterface
{
    public function __construct(private readonly string $label = 'psr', private readonly bool $pass = false)
    {
    }

    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        if ($this->pass) {
            return $handler->handle($request);
        }
        $trace = $request->getAttribute('trace', []);
        \assert(\is_array($trace));
        $trace[] = $this->label;

        return $handler->handle($request->withAttribute('trace', $trace))->withAddedHeader('X-Out', $this->label);
    }
}
