<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Petrel\Http\Response;
use Throwable;

/**
 * The exception behind an error response. A global middleware's $next never throws: the
 * App renders whatever the rest of the pipeline threw (routing's NotFound and
 * MethodNotAllowed, an HttpError, anything else as a 500) into the response $next returns,
 * so the middleware's "after" part runs on error responses too. A middleware that wants the
 * exception — to report it, or to answer its own page — asks for it here:
 *
 *     $response = $next->handle($request);
 *     if (RenderedError::of($response) instanceof NotFound) {
 *         return $this->view->response('404.html.twig', [], 404);
 *     }
 *
 * The response carries it (Response::withRenderedFrom()), and so do the copies that
 * withHeader() & co. make of it: a middleware in between that adds a header keeps it an
 * error response for those further out (it did not when the App kept the response object
 * itself, and a session was saved after its handler threw). A new response made in its
 * place (a page of one's own) carries none.
 */
final class RenderedError
{
    /** The exception $response was rendered from; null if none. */
    public static function of(Response $response): ?Throwable
    {
        return $response->getRenderedFrom();
    }

    /** @internal called by the App when it renders $error into $response: the marked copy */
    public static function record(Response $response, Throwable $error): Response
    {
        return $response->withRenderedFrom($error);
    }
}
