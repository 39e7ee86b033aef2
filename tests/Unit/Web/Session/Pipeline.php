<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Closure;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;

/** Middleware in order around a closure: the smallest stand-in for the App's pipeline. */
final class Pipeline implements RequestHandler
{
    /**
     * @param list<Middleware> $middleware outermost first
     * @param Closure(Request): Response $handler
     */
    public function __construct(private readonly array $middleware, private readonly Closure $handler)
    {
    }

    public function handle(Request $request): Response
    {
        $next = new ClosureHandler($this->handler);
        foreach (\array_reverse($this->middleware) as $middleware) {
            $inner = $next;
            $next = new ClosureHandler(static fn (Request $r): Response => $middleware->process($r, $inner));
        }

        return $next->handle($request);
    }
}
