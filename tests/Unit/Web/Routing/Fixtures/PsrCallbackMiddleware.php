<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Web\App;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

/** PSR-15 middleware that runs a closure: a body parser, a gzip, an ETag… in one line of a test. */
final class PsrCallbackMiddleware implements MiddlewareInterface
{
    /** @param \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface $process */
    public function __construct(private readonly \Closure $process)
    {
    }

    /**
     * An app running $middleware in front of $action, the route at `/` for $method, errors
     * not logged (the tests read the responses).
     *
     * @param \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface $middleware
     */
    public static function app(\Closure $middleware, \Closure $action, string $method = 'GET'): App
    {
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(new self($middleware));
        $app->map($method, '/', $action);

        return $app;
    }

    /** A header middleware (security headers): the inner response re-headed. */
    public static function securityHeaders(): \Closure
    {
        return static fn (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface => $next->handle($request)->withHeader('X-Frame-Options', 'DENY');
    }

    /** A gzip middleware: the inner response with its body replaced. */
    public static function gzip(): \Closure
    {
        return static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);
            $compressed = (new Psr17Factory())->createStream((string) \gzencode((string) $response->getBody()));

            return $response->withHeader('Content-Encoding', 'gzip')->withBody($compressed);
        };
    }

    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        return ($this->process)($request, $handler);
    }
}
