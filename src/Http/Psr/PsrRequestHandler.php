<?php

declare(strict_types=1);

namespace Petrel\Http\Psr;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Psr\Http\Server\RequestHandlerInterface;

/** Runs a PSR-15 request handler (a Slim, Mezzio or hand-made app) unchanged on Petrel. */
final class PsrRequestHandler implements RequestHandler
{
    private readonly PsrConverter $converter;

    public function __construct(private readonly RequestHandlerInterface $handler)
    {
        $this->converter = new PsrConverter();
    }

    public function handle(Request $request): Response
    {
        return $this->converter->fromPsrResponse($this->handler->handle($this->converter->toPsrRequest($request)));
    }
}
