<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

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
            : $this->converter->fromPsrRequest($request)->withRemoteAddress($this->request->getRemoteAddress());
        $this->response = $this->next->handle($petrelRequest);

        return $this->psrResponse = $this->converter->toPsrResponse($this->response);
    }

    /** The Petrel response behind $psrResponse, when it is (or only re-heads) the inner one. */
    public function reuse(ResponseInterface $psrResponse): ?Response
    {
        if ($this->response === null || $this->psrResponse === null) {
            return null;
        }
        if ($psrResponse === $this->psrResponse) {
            return $this->response;
        }
        if ($psrResponse->getBody() !== $this->psrResponse->getBody()) {
            return null;
        }
        $response = new Response($psrResponse->getStatusCode(), [], $this->response->getBody());
        foreach ($psrResponse->getHeaders() as $name => $values) {
            $response = $response->withHeader((string) $name, \array_values($values));
        }

        return $response;
    }
}
