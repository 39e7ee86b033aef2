<?php

declare(strict_types=1);

/*
 * Micro-benchmark of the router and the App's request path, on a 100-route app (30 static
 * routes, 70 dynamic ones with one or two placeholders, over GET/POST/PUT/DELETE):
 *
 * - Router::dispatch() per second: a static hit, a dynamic hit on the LAST dynamic GET
 *   route (every combined regex of the method tried), a miss (404: every method is tried
 *   to build Allow), a 405;
 * - App::handle() per second through the whole stack (scope, global + route middleware,
 *   argument injection, return-value conversion): a static route, a dynamic route with an
 *   int cast, and the same with one PSR-15 middleware (the cost of the PSR-7 bridge).
 *
 *   php bench/micro/router.php [seconds-per-case, default 1.5]
 *
 * Each case runs in 5 rounds; the best and the median round are printed.
 */

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\App;
use Petrel\Web\Middleware;
use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\Router;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

require __DIR__ . '/../../vendor/autoload.php';

$seconds = (float) ($argv[1] ?? 1.5);
const ROUNDS = 5;

final class PassThrough implements Middleware
{
    public function process(Request $request, RequestHandler $next): Response
    {
        return $next->handle($request);
    }
}

final class PsrPassThrough implements MiddlewareInterface
{
    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        return $handler->handle($request->withAttribute('seen', true));
    }
}

/** 100 routes; returns the pattern of the last dynamic GET route, filled in. */
function defineRoutes(App $app): string
{
    $methods = ['GET', 'POST', 'PUT', 'DELETE'];
    for ($i = 0; $i < 30; ++$i) {
        $app->map($methods[$i % 4], "/static/page{$i}", static fn () => 'static');
    }
    $last = '';
    for ($i = 0; $i < 70; ++$i) {
        $method = $i % 2 === 0 ? 'GET' : $methods[$i % 4];
        $pattern = $i % 3 === 0 ? "/resource{$i}/{id:\\d+}/items/{item}" : "/resource{$i}/{id:\\d+}";
        $app->map($method, $pattern, static fn (int $id) => ['id' => $id]);
        if ($method === 'GET') {
            $last = \str_replace(['{id:\d+}', '{item}'], ['12345', 'abc'], $pattern);
        }
    }

    return $last;
}

/**
 * @param callable(float): float $case returns operations per second over a round
 * @return array{float, float} best and median rate
 */
function rounds(callable $case, float $seconds): array
{
    $rates = [];
    for ($i = 0; $i < ROUNDS; ++$i) {
        $rates[] = $case($seconds / ROUNDS);
    }
    sort($rates);

    return [$rates[ROUNDS - 1], $rates[intdiv(ROUNDS, 2)]];
}

/** @param Closure(): mixed $operation */
function perSecond(Closure $operation, float $seconds): float
{
    $count = 0;
    $start = hrtime(true);
    $deadline = $start + (int) ($seconds * 1e9);
    do {
        for ($i = 0; $i < 1000; ++$i) {
            $operation();
        }
        $count += 1000;
        $now = hrtime(true);
    } while ($now < $deadline);

    return $count / (($now - $start) / 1e9);
}

$app = new App();
$lastDynamic = defineRoutes($app);
$routes = (new ReflectionProperty(App::class, 'table'))->getValue($app)->all();
\assert(\count($routes) === 100 && $routes[0] instanceof Route);
$router = new Router($routes);

$checks = [
    ['GET', '/static/page28', 0], ['GET', $lastDynamic, 0], ['GET', '/nothing/here', 1], ['PATCH', '/static/page0', 2],
];
foreach ($checks as [$method, $path, $status]) {
    \assert($router->dispatch($method, $path)->status === $status) or exit("unexpected result for {$method} {$path}\n");
}

$psrApp = new App();
defineRoutes($psrApp);
$psrApp->middleware(new PsrPassThrough());

$app->middleware(new PassThrough(), PassThrough::class);
$app->get('/users/{id:\d+}', static fn (int $id, Request $request) => Response::text("user {$id}"))->middleware(new PassThrough());
$psrApp->get('/users/{id:\d+}', static fn (int $id, Request $request) => Response::text("user {$id}"));

$static = Request::create('GET', '/static/page0');
$dynamic = Request::create('GET', '/users/42');
foreach ([$app->handle($static), $app->handle($dynamic), $psrApp->handle($dynamic)] as $response) {
    $response->getStatus() === 200 or exit("unexpected status {$response->getStatus()}\n");
}

$cases = [
    'router: static hit' => static fn () => $router->dispatch('GET', '/static/page28'),
    'router: dynamic hit, last GET route' => static fn () => $router->dispatch('GET', $lastDynamic),
    'router: miss (404)' => static fn () => $router->dispatch('GET', '/nothing/here'),
    'router: wrong method (405)' => static fn () => $router->dispatch('PATCH', '/static/page0'),
    'app: static route, 2 global middleware' => static fn () => $app->handle($static),
    'app: /users/{id:\d+}, 3 middleware, int + Request injected' => static fn () => $app->handle($dynamic),
    'app: /users/{id:\d+}, 1 PSR-15 middleware' => static fn () => $psrApp->handle($dynamic),
];

printf("%-60s %14s %14s\n", 'case (100 routes)', 'best /s', 'median /s');
foreach ($cases as $name => $case) {
    [$best, $median] = rounds(static fn (float $s): float => perSecond($case, $s), $seconds);
    printf("%-60s %14s %14s\n", $name, number_format($best), number_format($median));
}
