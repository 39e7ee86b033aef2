<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Cookie;
use Petrel\Http\Psr\PsrConverter;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Http\ResponseBody;
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
     * The Petrel response behind $psrResponse, when it is the inner one or was made from
     * it by with*() calls (PsrConverter::descendsFrom(): re-headed, its status changed, its
     * body replaced): the inner response with the status, headers and body of
     * $psrResponse, so it keeps what PSR-7 cannot carry (the Cookie objects, after-send
     * callbacks, the error it was rendered from, a 101's upgrade handler…). Its body is the
     * inner one's (a file still sent as a file) unless the middleware replaced it, wrote to
     * it or started its generator, then what the PSR body holds. Null for a response the
     * middleware built itself, or kept from another call (a cache): the adapter converts
     * it, and it inherits nothing.
     */
    public function reuse(ResponseInterface $psrResponse): ?Response
    {
        if ($this->response === null || $this->psrResponse === null || !$this->converter->descendsFrom($psrResponse, $this->psrResponse)) {
            return null;
        }
        $sent = $this->converter->fromPsrBody($psrResponse->getBody());
        if ($psrResponse === $this->psrResponse) {
            return $sent === $this->response->getBody() ? $this->response : $this->response->withBody($sent);
        }

        return $this->reheaded($this->response, $psrResponse, $sent);
    }

    /** $inner with the status and headers of $psrResponse: only what changed is set again. */
    private function reheaded(Response $inner, ResponseInterface $psrResponse, string|ResponseBody $body): Response
    {
        $cookies = [];
        foreach ($inner->getCookies() as $cookie) {
            $cookies[$cookie->toHeaderValue()] = $cookie;
        }
        $headers = [];
        $kept = [];
        foreach ($psrResponse->getHeaders() as $name => $values) {
            if ($cookies !== [] && \strtolower((string) $name) === 'set-cookie') {
                // the cookies' own lines (toPsrResponse() added them) are the cookies, not headers
                foreach ($values as $i => $value) {
                    if (isset($cookies[$value])) {
                        $kept[] = $cookies[$value];
                        unset($cookies[$value], $values[$i]);
                    }
                }
                if ($values === []) {
                    continue;
                }
            }
            $headers[\strtolower((string) $name)] = [(string) $name, \array_values($values)];
        }
        if ($cookies !== []) {
            // a cookie's line was removed or rewritten (e.g. "; Secure" added): the lines are sent
            return $this->rebuilt($inner, $psrResponse->getStatusCode(), $headers, $body, $kept);
        }
        $response = $psrResponse->getStatusCode() === $inner->getStatus() ? $inner : $inner->withStatus($psrResponse->getStatusCode());
        foreach ($inner->getHeaders() as $name => $values) {
            $key = \strtolower($name);
            if (!isset($headers[$key])) {
                $response = $response->withoutHeader($name);
            } elseif ($headers[$key][1] === $values) {
                unset($headers[$key]);
            }
        }
        foreach ($headers as [$name, $values]) {
            $response = $response->withHeader($name, $values);
        }

        return $body === $inner->getBody() ? $response : $response->withBody($body);
    }

    /**
     * A new response without the inner one's cookies other than $kept (the others' lines
     * are among $headers, as the middleware left them), keeping the error it was rendered
     * from, its after-send callbacks and a 101's upgrade handler.
     *
     * @param array<string, array{string, list<string>}> $headers
     * @param list<Cookie> $kept
     */
    private function rebuilt(Response $inner, int $status, array $headers, string|ResponseBody $body, array $kept): Response
    {
        $fields = [];
        foreach ($headers as [$name, $values]) {
            $fields[$name] = $values;
        }
        $upgrade = $inner->getUpgradeHandler();
        $response = $status === 101 && $upgrade !== null ? Response::upgrade($fields, $upgrade)->withBody($body) : new Response($status, $fields, $body);
        foreach ($kept as $cookie) {
            $response = $response->withCookie($cookie);
        }

        foreach ($inner->getAfterSend() as $callback) {
            $response = $response->withAfterSend($callback);
        }

        return $inner->getRenderedFrom() === null ? $response : $response->withRenderedFrom($inner->getRenderedFrom());
    }
}
