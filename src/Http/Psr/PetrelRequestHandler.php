<?php

declare(strict_types=1);

namespace Petrel\Http\Psr;

use Petrel\Http\RequestHandler;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/** Exposes a Petrel handler as a PSR-15 handler (e.g. as the "next" of PSR-15 middleware). */
final class PetrelRequestHandler implements RequestHandlerInterface
{
    private readonly PsrConverter $converter;

    public function __construct(private readonly RequestHandler $handler)
    {
        $this->converter = new PsrConverter();
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        return $this->converter->toPsrResponse($this->handler->handle($this->converter->fromPsrRequest($request)));
    }
}
