<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

/** PSR-15 middleware that runs a closure: a body parser, a gzip, an ETag… in one line of a test. */
final class PsrCallbackMiddleware implements MiddlewareInterface
{
    /** @param \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface $process */
    public function __construct(private readonly \Closure $process)
    {
    }

    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        return ($this->process)($request, $handler);
    }
}
