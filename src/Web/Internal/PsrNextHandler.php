<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Psr\Internal\RoundTrip;
use Petrel\Http\Psr\PsrConverter;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * The "next" handed to one call of a PSR-15 middleware (one instance per call, never
 * shared): converts to the Petrel chain and remembers the inner response, so the adapter
 * can reuse it.
 *
 * @internal
 */
final class PsrNextHandler implements RequestHandlerInterface
{
    private ?Response $response = null;

    private ?ResponseInterface $psrResponse = null;

    public function __construct(
        private readonly PsrConverter $converter,
        private readonly RequestHandler $next,
        private readonly Request $request,
        private readonly ServerRequestInterface $psrRequest,
    ) {
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $petrelRequest = $request === $this->psrRequest
            ? $this->request
            : $this->converter->fromPsrRequest($request, $this->request, $this->psrRequest);
        $this->response = $this->next->handle($petrelRequest);

        return $this->psrResponse = $this->converter->toPsrResponse($this->response);
    }

    /**
     * The inner Petrel response, with the status, headers and body of $psrResponse, when
     * the middleware returned it or made it from it by with*() calls, so it keeps what
     * PSR-7 cannot carry; null for a response it built itself or kept from another call
     * (the adapter converts it): see RoundTrip::reused(), shared with PsrRequestHandler.
     */
    public function reuse(ResponseInterface $psrResponse): ?Response
    {
        return $this->response === null || $this->psrResponse === null ? null : RoundTrip::reused($this->response, $this->psrResponse, $psrResponse, $this->converter);
    }
}
