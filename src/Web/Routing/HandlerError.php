<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

/**
 * A route handler or middleware that cannot be used, a bug in the application: not a
 * callable shape, a parameter nothing can fill, a return value that is not a response, a
 * middleware class that is not a middleware. Raised when the route is first called, and
 * the message names the handler and the parameter.
 */
final class HandlerError extends \Error
{
}
