<?php

declare(strict_types=1);

namespace Petrel\Http;

use Closure;
use InvalidArgumentException;
use Petrel\Http\Psr\PsrRequestHandler;

/**
 * Turns what an APP file returns into a RequestHandler: a Closure(Request): Response, a
 * RequestHandler (a Petrel\Web\App is one), or a PSR-15 RequestHandlerInterface run
 * through the PSR-7 bridge. The server (Console) and classic mode (Web\Classic) share it.
 */
final class Handlers
{
    /**
     * @param string $what how the error names the source, e.g. the APP file's path
     * @throws InvalidArgumentException when $app is none of those
     */
    public static function from(mixed $app, string $what = 'APP'): RequestHandler
    {
        if ($app instanceof RequestHandler) {
            return $app;
        }
        if ($app instanceof Closure) {
            return new ClosureHandler($app);
        }
        if (\interface_exists(\Psr\Http\Server\RequestHandlerInterface::class) && $app instanceof \Psr\Http\Server\RequestHandlerInterface) {
            return new PsrRequestHandler($app);
        }
        throw new InvalidArgumentException(\sprintf(
            '%s must return a request handler (a Closure taking a Petrel\Http\Request and returning a Response, '
            . 'a Petrel\Http\RequestHandler, a PSR-15 RequestHandlerInterface or a Petrel\Web\App); it returned %s',
            $what,
            \get_debug_type($app),
        ));
    }
}
