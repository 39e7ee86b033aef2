<?php

declare(strict_types=1);

namespace Petrel\Http\Psr\Internal;

use Petrel\Http\Cookie;
use Petrel\Http\Psr\PsrConverter;
use Petrel\Http\Psr\PsrRequestHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\ResponseBody;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * One request's trip from Petrel into a PSR-15 app (PsrRequestHandler) and, through a
 * PetrelRequestHandler, back into a Petrel handler: the Petrel request it left from, the
 * PSR request made of it, and the Petrel response the inner handler gave with what it was
 * converted to. So the way back in gets the original Petrel request when the app handed
 * its request on, and the way out sends the inner Petrel response when the app returned
 * it or made it from it by with*() calls (reused(): the Web layer's PSR middleware adapter
 * does the same for its "next").
 *
 * Carried by the PSR request, as its attribute PsrRequestHandler::ROUND_TRIP_ATTRIBUTE,
 * rather than held by either handler: both serve every coroutine of the worker at once, so
 * "the last inner response" in a property of theirs could be another request's. Each
 * run() makes its own. A PSR request that the app kept from another request carries
 * that request's trip, and a response kept from another request descends from no response
 * recorded here: neither gives this request what another one's Petrel response holds.
 *
 * The price (callgrind, a PSR-15 middleware adding a header): ~3.4k instructions a request
 * for an app without a Petrel handler (88.7k → 92.2k: the attribute's clone of the PSR
 * request, this object); ~11k saved with one behind it (94.3k → 82.8k: its request and
 * response are not converted back).
 *
 * @internal
 */
final class RoundTrip
{
    private ?Request $request = null;

    private ?ServerRequestInterface $psrRequest = null;

    private ?Response $response = null;

    private ?ResponseInterface $psrResponse = null;

    /**
     * Hands $app what toPsrRequest() makes of $request, carrying a trip of its own, and
     * gives back the Petrel response to send: the inner one the trip recorded when the app
     * returned it or made it from it (reused()), else the app's response converted. One
     * call rather than a constructor and three methods: each call is a few hundred
     * instructions without JIT, and every request of a PSR-15 app comes through here.
     */
    public static function run(RequestHandlerInterface $app, Request $request, PsrConverter $converter): Response
    {
        $trip = new self();
        $psrRequest = $converter->toPsrRequest($request)->withAttribute(PsrRequestHandler::ROUND_TRIP_ATTRIBUTE, $trip);
        $trip->request = $request;
        $trip->psrRequest = $psrRequest;
        try {
            $returned = $app->handle($psrRequest);
            $inner = $trip->response;
            $converted = $trip->psrResponse;
        } finally {
            // The PSR request holds the trip and the trip the PSR request: a cycle, left to
            // the garbage collector otherwise (~4.6k instructions a request). Ended, the trip
            // records nothing more: a PSR request the app keeps holds on to no response.
            $trip->request = $trip->psrRequest = $trip->response = $trip->psrResponse = null;
        }

        return ($inner === null || $converted === null ? null : self::reused($inner, $converted, $returned, $converter))
            ?? $converter->fromPsrResponse($returned);
    }

    /**
     * The Petrel request for the PSR request the app hands to its Petrel handler: the
     * original one when it is the very request the app was given (nothing lost, nothing
     * re-parsed), else converted keeping what the app left alone (PsrConverter::
     * fromPsrRequest()'s $origin: the body, remote address, trailers), without this trip.
     */
    public function petrelRequest(ServerRequestInterface $request, PsrConverter $converter): Request
    {
        if ($request === $this->psrRequest && $this->request !== null) {
            return $this->request;
        }

        return $converter->fromPsrRequest($request->withoutAttribute(PsrRequestHandler::ROUND_TRIP_ATTRIBUTE), $this->request, $this->psrRequest);
    }

    /**
     * Keeps the inner handler's $response and $psrResponse, what toPsrResponse() made of it
     * (the last ones, when the app calls its handler more than once), and gives the latter.
     */
    public function record(Response $response, ResponseInterface $psrResponse): ResponseInterface
    {
        if ($this->request !== null) { // not once ended (see run())
            $this->response = $response;
            $this->psrResponse = $psrResponse;
        }

        return $psrResponse;
    }

    /** @return array{} a middleware serializing the request (a queue, a cache key) gets an ended trip */
    public function __serialize(): array
    {
        return [];
    }

    /** @param array<mixed> $data */
    public function __unserialize(array $data): void
    {
    }

    /**
     * The Petrel response behind $returned, when it is $converted (what toPsrResponse() made
     * of $inner) or was made from it by with*() calls (PsrConverter::descendsFrom():
     * re-headed, its status changed, its body replaced): $inner with the status, headers and
     * body of $returned, so it keeps what PSR-7 cannot carry (the Cookie objects, after-send
     * callbacks, the error it was rendered from, a 101's upgrade handler…). Its body is the
     * inner one's (a file still sent as a file) unless the PSR code replaced it, wrote to it
     * or started its generator, then what the PSR body holds. Null for a response the PSR
     * code built itself, or kept from another call (a cache): the caller converts it, and
     * it inherits nothing.
     */
    public static function reused(Response $inner, ResponseInterface $converted, ResponseInterface $returned, PsrConverter $converter): ?Response
    {
        if (!$converter->descendsFrom($returned, $converted)) {
            return null;
        }
        $sent = $converter->fromPsrBody($returned->getBody());
        if ($returned === $converted) {
            return $sent === $inner->getBody() ? $inner : $inner->withBody($sent);
        }

        return self::reheaded($inner, $returned, $sent);
    }

    /** $inner with the status and headers of $psrResponse: only what changed is set again. */
    private static function reheaded(Response $inner, ResponseInterface $psrResponse, string|ResponseBody $body): Response
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
            return self::rebuilt($inner, $psrResponse->getStatusCode(), $headers, $body, $kept);
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
     * are among $headers, as the PSR code left them), keeping the error it was rendered
     * from, its after-send callbacks and a 101's upgrade handler.
     *
     * @param array<string, array{string, list<string>}> $headers
     * @param list<Cookie> $kept
     */
    private static function rebuilt(Response $inner, int $status, array $headers, string|ResponseBody $body, array $kept): Response
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
