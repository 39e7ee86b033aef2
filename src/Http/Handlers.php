<?php

declare(strict_types=1);

namespace Petrel\Http;

use Closure;
use InvalidArgumentException;
use Petrel\Http\Psr\PsrRequestHandler;
use Petrel\Symfony\KernelHandler;

/**
 * Turns what an APP file returns into a RequestHandler: a Closure(Request): Response, a
 * RequestHandler (a Petrel\Web\App is one), a PSR-15 RequestHandlerInterface run
 * through the PSR-7 bridge, or a Symfony HttpKernelInterface (an app's Kernel) run through
 * Petrel\Symfony\KernelHandler, which boots it now. The server (Console) and classic mode
 * (Web\Classic) share it. The optional frameworks are recognised only when installed.
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
        if (\interface_exists(\Symfony\Component\HttpKernel\HttpKernelInterface::class) && $app instanceof \Symfony\Component\HttpKernel\HttpKernelInterface) {
            return new KernelHandler($app);
        }
        throw new InvalidArgumentException(\sprintf(
            '%s must return a request handler (a Closure taking a Petrel\Http\Request and returning a Response, '
            . 'a Petrel\Http\RequestHandler, a PSR-15 RequestHandlerInterface, a Petrel\Web\App or a Symfony '
            . 'HttpKernelInterface); it returned %s',
            $what,
            \get_debug_type($app),
        ));
    }
}
