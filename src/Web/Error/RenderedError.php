<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Petrel\Http\Response;
use Petrel\Web\Container\Scope;
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
 * Kept in the request's scope (so per request, gone when the request ends), for the
 * response object the App rendered; a copy made with withHeader() & co. is a new response
 * and is not found.
 */
final class RenderedError
{
    private const SCOPE_KEY = 'petrel.web.rendered-errors';

    /** The exception $response was rendered from, in the current request; null if none. */
    public static function of(Response $response): ?Throwable
    {
        $scope = Scope::current();
        if ($scope === null || !$scope->has(self::SCOPE_KEY)) {
            return null;
        }
        /** @var list<array{Response, Throwable}> $rendered */
        $rendered = $scope->get(self::SCOPE_KEY);
        foreach ($rendered as [$candidate, $error]) {
            if ($candidate === $response) {
                return $error;
            }
        }

        return null;
    }

    /** @internal called by the App when it renders $error into $response */
    public static function record(Response $response, Throwable $error): void
    {
        $scope = Scope::current();
        if ($scope === null || $scope->isClosed()) {
            return;
        }
        /** @var list<array{Response, Throwable}> $rendered */
        $rendered = $scope->has(self::SCOPE_KEY) ? $scope->get(self::SCOPE_KEY) : [];
        $rendered[] = [$response, $error];
        $scope->set(self::SCOPE_KEY, $rendered);
    }
}
