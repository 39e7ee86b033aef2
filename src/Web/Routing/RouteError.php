<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

/**
 * Misuse of the router, a bug in the application's routing code: a malformed pattern, the
 * same route twice, a duplicate or unknown route name, URL parameters that are missing or
 * do not fit their constraint, routes or middleware added after the App compiled them.
 */
final class RouteError extends \Error
{
}
