<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Tests\Support\MinimalContainer;
use Petrel\Tests\Unit\Web\Routing\Fixtures\Greeter;
use Petrel\Tests\Unit\Web\Routing\Fixtures\InvokableHandler;
use Petrel\Tests\Unit\Web\Routing\Fixtures\NeedsConfig;
use Petrel\Tests\Unit\Web\Routing\Fixtures\UserController;
use Petrel\Web\App;
use Petrel\Web\Container\Container;
use Petrel\Web\Internal\ArgumentPlan;
use Petrel\Web\Internal\ResponseConverter;
use Petrel\Web\Internal\RouteHandler;
use Petrel\Web\Routing\RouteResult;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Psr\Container\ContainerInterface;

#[CoversClass(ArgumentPlan::class)]
#[CoversClass(RouteHandler::class)]
#[CoversClass(ResponseConverter::class)]
final class ArgumentInjectionTest extends TestCase
{
    private static function app(?ContainerInterface $container = null): App
    {
        $app = new App($container ?? new Container(), debug: true);
        $app->setErrorLogger(static function (): void {
        });

        return $app;
    }

    private static function get(App $app, string $uri): Response
    {
        return $app->handle(Request::create('GET', $uri, ['Accept' => 'application/json']));
    }

    private static function body(Response $response): string
    {
        $body = $response->getBody();
        self::assertIsString($body);

        return $body;
    }

    /** @return array<string, mixed> */
    private static function json(Response $response): array
    {
        $data = \json_decode(self::body($response), true, flags: \JSON_THROW_ON_ERROR);
        self::assertIsArray($data);

        return $data;
    }

    /** @return iterable<string, array{string, int, ?list<mixed>}> */
    public static function scalarCasts(): iterable
    {
        yield 'all types' => ['/s/42/1.5/true/text/raw/7', 200, [42, 1.5, true, 'text', 'raw', '7']];
        yield 'negative, exponent, false' => ['/s/-3/-2e3/0/x/y/z', 200, [-3, -2000.0, false, 'x', 'y', 'z']];
        yield 'leading zeros' => ['/s/007/.5/FALSE/x/y/z', 200, [7, 0.5, false, 'x', 'y', 'z']];
        yield 'int max' => ['/s/9223372036854775807/1/1/x/y/z', 200, [\PHP_INT_MAX, 1.0, true, 'x', 'y', 'z']];
        yield 'int overflow is a 404' => ['/s/9223372036854775808/1/1/x/y/z', 404, null];
        yield 'not an int' => ['/s/abc/1/1/x/y/z', 404, null];
        yield 'int with spaces' => ['/s/%201/1/1/x/y/z', 404, null];
        yield 'int with plus' => ['/s/+1/1/1/x/y/z', 404, null];
        yield 'hex is not an int' => ['/s/0x1A/1/1/x/y/z', 404, null];
        yield 'float as int' => ['/s/1.0/1/1/x/y/z', 404, null];
        yield 'not a float' => ['/s/1/1.2.3/1/x/y/z', 404, null];
        yield 'infinite float' => ['/s/1/1e999/1/x/y/z', 404, null];
        yield 'not a bool' => ['/s/1/1/yes/x/y/z', 404, null];
        yield 'decoded before the cast' => ['/s/%34%32/1/1/a%20b/%2F/z', 200, [42, 1.0, true, 'a b', '/', 'z']];
    }

    /** @param list<mixed>|null $expected */
    #[DataProvider('scalarCasts')]
    public function testScalarCasts(string $uri, int $status, ?array $expected): void
    {
        $app = self::app();
        $app->get('/s/{i}/{f}/{b}/{s}/{untyped}/{union}', [UserController::class, 'scalars']);
        $response = self::get($app, $uri);
        self::assertSame($status, $response->getStatus(), self::body($response));
        if ($expected !== null) {
            self::assertSame($expected, self::json($response));
        }
    }

    /** A union of scalar types takes the first of int, float, bool that the value is. */
    public function testAUnionOfScalarsTakesTheFirstCastThatFits(): void
    {
        $app = self::app();
        $app->get('/n/{n}', static fn (int|float $n) => [$n]);
        $app->get('/f/{flag}', static fn (bool|int $flag) => [$flag]);
        self::assertSame([2], self::json(self::get($app, '/n/2')));
        self::assertSame([1.5], self::json(self::get($app, '/n/1.5')));
        self::assertSame([-12.5], self::json(self::get($app, '/n/-1.25e1')));
        self::assertSame(404, self::get($app, '/n/abc')->getStatus());
        self::assertSame([7], self::json(self::get($app, '/f/7')));
        self::assertSame([true], self::json(self::get($app, '/f/true')));
        self::assertSame([1], self::json(self::get($app, '/f/1')), 'int comes first');
        self::assertSame(404, self::get($app, '/f/1.5')->getStatus());
    }

    public function testRequestRouteResultServicesAppAndDefaults(): void
    {
        $app = self::app();
        $app->get('/users/{id:\d+}', [UserController::class, 'show']);
        $app->get('/greet/{name}', [UserController::class, 'greet']);
        $app->get('/pages[/{page:\d+}]', [UserController::class, 'page']);
        $app->get('/app', static fn (App $a, ContainerInterface $c, Greeter $g) => [$a === $app, $c === $app->container(), $g->greet('x')]);
        $app->get('/optional-service', [UserController::class, 'optionalService']);

        self::assertSame(['id' => 5, 'path' => '/users/5', 'missing' => null], self::json(self::get($app, '/users/5')));
        self::assertSame('Hello, Zoë', self::body(self::get($app, '/greet/Zo%C3%AB')));
        self::assertSame('page 1 of /pages[/{page:\d+}]', self::body(self::get($app, '/pages')));
        self::assertSame('page 3 of /pages[/{page:\d+}]', self::body(self::get($app, '/pages/3')));
        self::assertSame([true, true, 'Hello, x'], self::json(self::get($app, '/app')));
        self::assertSame('no config', self::body(self::get($app, '/optional-service')));
    }

    /** @return iterable<string, array{mixed, string}> */
    public static function handlerShapes(): iterable
    {
        yield 'closure' => [static fn (string $name) => "closure {$name}", 'closure x'];
        yield 'invokable class name' => [InvokableHandler::class, 'invoked x'];
        yield 'invokable instance' => [new InvokableHandler(), 'invoked x'];
        yield '[Class, method]' => [[UserController::class, 'greet'], 'Hello, x'];
        yield '[object, method]' => [[new UserController(new Greeter()), 'greet'], 'Hello, x'];
        yield 'static method' => [[UserController::class, 'staticHandler'], 'static x'];
        yield 'first-class callable' => [(new Greeter())->greet(...), 'Hello, x'];
    }

    #[DataProvider('handlerShapes')]
    public function testHandlerShapes(mixed $handler, string $expected): void
    {
        foreach ([new Container(), new MinimalContainer()] as $container) {
            if ($container instanceof MinimalContainer && \is_array($handler) && $handler[0] === UserController::class && $handler[1] !== 'staticHandler') {
                continue; // needs constructor injection
            }
            $app = self::app($container);
            $app->get('/{name}', $handler);
            self::assertSame($expected, self::body(self::get($app, '/x')), $container::class);
        }
    }

    public function testTheContainerDecidesTheControllerLifetime(): void
    {
        $transient = self::app();
        $transient->get('/{name}', [UserController::class, 'greet']);
        UserController::$instances = 0;
        self::get($transient, '/a');
        self::get($transient, '/b');
        self::assertSame(2, UserController::$instances, 'autowired classes are built per call');

        $container = new Container();
        $container->singleton(UserController::class);
        $shared = self::app($container);
        $shared->get('/{name}', [UserController::class, 'greet']);
        UserController::$instances = 0;
        self::get($shared, '/a');
        self::get($shared, '/b');
        self::assertSame(1, UserController::$instances, 'a singleton is built once');
    }

    /** @return iterable<string, array{string, mixed, string}> */
    public static function unresolvable(): iterable
    {
        yield 'no such placeholder' => ['/x/{id}', [UserController::class, 'unresolvable'],
            'Cannot inject parameter $nope of ' . UserController::class . '::unresolvable() (route GET /x/{id}): there is no placeholder "nope" in the pattern (it has "id") and no type to inject by'];
        yield 'optional placeholder without default' => ['/x[/{page}]', [UserController::class, 'optionalWithoutDefault'],
            'Cannot inject parameter $page of ' . UserController::class . '::optionalWithoutDefault() (route GET /x[/{page}]): the placeholder "page" is in an optional segment; give the parameter a default or make it nullable'];
        yield 'service the container cannot build' => ['/x', [UserController::class, 'needsConfig'],
            'Cannot inject parameter $config of ' . UserController::class . '::needsConfig() (route GET /x): Cannot resolve ' . NeedsConfig::class];
        yield 'array-typed placeholder' => ['/x/{list}', static fn (array $list) => null, 'the placeholder "list" cannot be passed as array'];
        yield 'untyped, not a placeholder' => ['/x', static fn ($what) => null, 'there is no placeholder "what" in the pattern (it has none)'];
        yield 'variadic' => ['/x', static fn (string ...$rest) => null, 'variadic parameters cannot be injected'];
        yield 'private method' => ['/x', [UserController::class, 'secret'], 'Route handler ' . UserController::class . '::secret() is not public'];
        yield 'closure named by place' => ['/x', static fn (int $nope) => null, 'of the closure at ' . __FILE__ . ':' . __LINE__];
    }

    #[DataProvider('unresolvable')]
    public function testUnresolvableParametersFailAtFirstCallNamingHandlerAndParameter(string $pattern, mixed $handler, string $message): void
    {
        $app = self::app();
        $app->get($pattern, $handler);
        $path = \str_replace(['[/{page}]', '{id}', '{list}'], ['', '1', 'a'], $pattern);
        $response = self::get($app, $path);
        self::assertSame(500, $response->getStatus());
        $debug = self::json($response)['error']['debug'] ?? [];
        self::assertSame('Petrel\Web\Routing\HandlerError', $debug['class'] ?? null);
        self::assertStringContainsString($message, $debug['message'] ?? '');
    }

    public function testAServiceTheContainerDoesNotHaveFailsAtFirstCall(): void
    {
        $app = self::app(new MinimalContainer());
        $app->get('/x', static fn (NeedsConfig $config) => null);
        $debug = self::json(self::get($app, '/x'))['error']['debug'] ?? [];
        self::assertSame('Cannot inject parameter $config of the closure at ' . __FILE__ . ':' . (__LINE__ - 2) . ' (route GET /x): the container has no service "' . NeedsConfig::class . '"', $debug['message'] ?? null);
    }

    public function testTheMinimalContainerFixture(): void
    {
        $container = new MinimalContainer();
        self::assertTrue($container->has(Greeter::class));
        self::assertSame($container->get(Greeter::class), $container->get(Greeter::class));
        self::assertFalse($container->has(NeedsConfig::class));
        self::assertFalse($container->has('nope'));
        self::assertFalse($container->has(\Countable::class));
        $this->expectException(\Psr\Container\NotFoundExceptionInterface::class);
        $container->get(NeedsConfig::class);
    }

    public function testRouteResultIsOnTheRequest(): void
    {
        $app = self::app();
        $app->get('/r/{a}/{b}', static fn (Request $r) => $r->getAttribute(RouteResult::class)->params);
        self::assertSame(['a' => 'x y', 'b' => 'z'], self::json(self::get($app, '/r/x%20y/z')));
    }
}
