<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web;

use Petrel\Coroutine\Context;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Tests\Unit\Web\Routing\Fixtures\Item;
use Petrel\Tests\Unit\Web\Routing\Fixtures\TraceMiddleware;
use Petrel\Web\App;
use Petrel\Web\Container\Container;
use Petrel\Web\Container\Scope;
use Petrel\Web\Error\Forbidden;
use Petrel\Web\Internal\RoutingHandler;
use Petrel\Web\Routing\HandlerError;
use Petrel\Web\Routing\RouteError;
use Petrel\Web\Routing\RouteGroup;
use Petrel\Web\Routing\RouteResult;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(App::class)]
#[CoversClass(RoutingHandler::class)]
final class AppTest extends TestCase
{
    /** @var list<string> */
    private array $logged = [];

    private function app(bool $debug = false): App
    {
        $app = new App(null, $debug);
        $app->setErrorLogger(function (\Throwable $error, Request $request): void {
            $this->logged[] = $request->getMethod() . ' ' . $request->getTarget() . ': ' . $error->getMessage();
        });

        return $app;
    }

    /** @param array<string, string> $headers */
    private static function call(App $app, string $method, string $uri, array $headers = [], string $body = ''): Response
    {
        return $app->handle(Request::create($method, $uri, $headers, $body));
    }

    private static function body(Response $response): string
    {
        $body = $response->getBody();
        self::assertIsString($body);

        return $body;
    }

    /** @return iterable<string, array{mixed, int, ?string, string}> */
    public static function returnValues(): iterable
    {
        yield 'string is HTML' => ['<b>hi</b>', 200, 'text/html; charset=utf-8', '<b>hi</b>'];
        yield 'array is JSON' => [['a' => 1, 'u' => 'é/'], 200, 'application/json', '{"a":1,"u":"é/"}'];
        yield 'list is JSON' => [[1, 2], 200, 'application/json', '[1,2]'];
        yield 'JsonSerializable is JSON' => [new Item(7), 200, 'application/json', '{"id":7}'];
        yield 'null is 204' => [null, 204, null, ''];
        yield 'Response as is' => [Response::text('t', 201), 201, 'text/plain; charset=utf-8', 't'];
    }

    #[DataProvider('returnValues')]
    public function testReturnValues(mixed $value, int $status, ?string $type, string $body): void
    {
        $app = $this->app();
        $app->get('/', static fn () => $value);
        $response = self::call($app, 'GET', '/');
        self::assertSame($status, $response->getStatus());
        self::assertSame($type, $response->getHeader('content-type'));
        self::assertSame($body, self::body($response));
    }

    public function testVoidHandlerIs204(): void
    {
        $app = $this->app();
        $app->post('/', static function (): void {
        });
        self::assertSame(204, self::call($app, 'POST', '/')->getStatus());
    }

    public function testAnUnsupportedReturnValueIsA500NamingTheHandler(): void
    {
        $app = $this->app(debug: true);
        $app->get('/', static fn () => 42);
        $response = self::call($app, 'GET', '/', ['Accept' => 'application/json']);
        self::assertSame(500, $response->getStatus());
        self::assertStringContainsString('returned int: return a Petrel', self::body($response));
        self::assertStringContainsString('the closure at ' . __FILE__, $this->logged[0]);
    }

    public function testNotFoundAndMethodNotAllowedAsHtmlOrJson(): void
    {
        $app = $this->app();
        $app->get('/items', static fn () => 'items');
        $app->post('/items', static fn () => 'created');

        $html = self::call($app, 'GET', '/nope');
        self::assertSame(404, $html->getStatus());
        self::assertSame('text/html; charset=utf-8', $html->getHeader('content-type'));
        self::assertStringContainsString('<h1>404 Not Found</h1>', self::body($html));

        $json = self::call($app, 'GET', '/nope', ['Accept' => 'application/json']);
        self::assertSame('{"error":{"status":404,"message":"Not Found"}}', self::body($json));
        self::assertSame('application/json', $json->getHeader('content-type'));

        $problem = self::call($app, 'GET', '/nope', ['Accept' => 'application/problem+json']);
        self::assertSame('application/json', $problem->getHeader('content-type'));

        $browser = self::call($app, 'GET', '/nope', ['Accept' => 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']);
        self::assertStringStartsWith('<!DOCTYPE html>', self::body($browser));

        $notAllowed = self::call($app, 'DELETE', '/items', ['Accept' => 'application/json']);
        self::assertSame(405, $notAllowed->getStatus());
        self::assertSame('GET, HEAD, POST', $notAllowed->getHeader('Allow'));
        self::assertSame('{"error":{"status":405,"message":"Method Not Allowed"}}', self::body($notAllowed));
        self::assertSame([], $this->logged, '4xx are not logged');
    }

    public function testHeadIsServedByGetAndQueryStringsAreNotPartOfThePath(): void
    {
        $app = $this->app();
        $app->get('/users/{id:\d+}', static fn (int $id, Request $r) => ['id' => $id, 'q' => $r->getQueryParam('q')]);
        $app->get('/names/{name}', static fn (string $name) => $name);
        $head = self::call($app, 'HEAD', '/users/5?q=x');
        self::assertSame(200, $head->getStatus());
        self::assertSame('{"id":5,"q":"x"}', self::body($head), 'the server, not the App, drops the body of a HEAD response');
        self::assertSame(400, self::call($app, 'GET', '/names/%FF')->getStatus());
        self::assertSame('é', self::body(self::call($app, 'GET', '/names/%C3%A9?x')));
        self::assertSame(404, self::call($app, 'GET', '/users/%FF')->getStatus(), 'the constraint sees %FF');
        self::assertSame(404, self::call($app, 'GET', '/users/5/')->getStatus());
    }

    /** The App looks a request's target up among the static routes first: only a target that is a path may hit. */
    public function testStaticRoutesMatchThePathNotTheWholeTarget(): void
    {
        $app = $this->app();
        $app->get('/', static fn () => 'home');
        $app->get('/users', static fn () => 'users');
        $app->get('/a%3Fb', static fn () => 'a?b');
        $app->get('/a', static fn () => 'a');
        self::assertSame('home', self::body(self::call($app, 'GET', '/?x=1')));
        self::assertSame('users', self::body($app->handle(new Request('GET', 'http://example.com/users'))), 'absolute form');
        self::assertSame('home', self::body($app->handle(new Request('GET', 'http://example.com'))));
        self::assertSame('a', self::body(self::call($app, 'GET', '/a?b')), 'a query is not part of the path');
        self::assertSame('a?b', self::body(self::call($app, 'GET', '/a%3fb')));
        self::assertSame('users', self::body(self::call($app, 'HEAD', '/users')));
        self::assertSame(405, self::call($app, 'POST', '/users')->getStatus());
        self::assertSame(404, self::call($app, 'GET', 'users')->getStatus());
    }

    public function testGroupPrefixes(): void
    {
        $app = $this->app();
        $app->group('/admin', static function (RouteGroup $g): void {
            $g->get('', static fn () => 'admin');
            $g->get('/', static fn () => 'admin/');
            $g->get('/{section}', static fn (string $section) => "section {$section}");
        });
        $app->group('', static fn (RouteGroup $g) => $g->get('/plain', static fn () => 'plain'), [new TraceMiddleware()]);
        self::assertSame('admin', self::body(self::call($app, 'GET', '/admin')));
        self::assertSame('admin/', self::body(self::call($app, 'GET', '/admin/')));
        self::assertSame('section x', self::body(self::call($app, 'GET', '/admin/x')));
        self::assertSame('trace', self::call($app, 'GET', '/plain')->getHeader('X-Out'));
    }

    /** @return iterable<string, array{\Closure(App): mixed, string}> */
    public static function misuse(): iterable
    {
        yield 'prefix without slash' => [static fn (App $a) => $a->group('admin', static fn () => null), 'must start with "/"'];
        yield 'prefix with trailing slash' => [static fn (App $a) => $a->group('/admin/', static fn () => null), 'not end with one'];
        yield 'pattern without slash' => [static fn (App $a) => $a->group('/a', static fn (RouteGroup $g) => $g->get('x', 'strlen')), 'must start with "/"'];
        yield 'bad method' => [static fn (App $a) => $a->map('GE T', '/', static fn () => null), 'Invalid HTTP method'];
        yield 'no method' => [static fn (App $a) => $a->map([], '/', static fn () => null), 'at least one method'];
        yield 'bad pattern' => [static fn (App $a) => $a->get('/{a', static fn () => null), 'Route pattern "/{a"'];
        yield 'empty name' => [static fn (App $a) => $a->get('/', static fn () => null)->name(''), 'must not be empty'];
    }

    /** @param \Closure(App): mixed $misuse */
    #[DataProvider('misuse')]
    public function testMisuseIsAnErrorAtRegistration(\Closure $misuse, string $message): void
    {
        $this->expectException(RouteError::class);
        $this->expectExceptionMessage($message);
        $misuse($this->app());
    }

    /** @return iterable<string, array{mixed}> */
    public static function invalidHandlers(): iterable
    {
        yield 'function name' => ['strlen'];
        yield 'unknown class' => ['No\\Such\\Controller'];
        yield 'class without __invoke' => [\stdClass::class];
        yield 'object without __invoke' => [new \stdClass()];
        yield 'unknown method' => [[Item::class, 'nope']];
        yield 'Class::method string' => [Item::class . '::jsonSerialize'];
        yield 'int' => [42];
    }

    #[DataProvider('invalidHandlers')]
    public function testInvalidHandlersAreRejectedAtRegistration(mixed $handler): void
    {
        $this->expectException(HandlerError::class);
        $this->expectExceptionMessage('Invalid route handler');
        $this->app()->get('/', $handler);
    }

    public function testNothingCanBeRegisteredAfterCompile(): void
    {
        $app = $this->app();
        $route = $app->get('/', static fn () => 'home');
        $group = null;
        $app->group('/g', static function (RouteGroup $g) use (&$group): void {
            $group = $g;
        });
        self::assertSame(200, self::call($app, 'GET', '/')->getStatus()); // compiles
        $attempts = [
            'add route' => static fn () => $app->get('/late', static fn () => 'late'),
            'add global middleware' => static fn () => $app->middleware(new TraceMiddleware()),
            'add group' => static fn () => $app->group('/late', static fn () => null),
            'name route' => static fn () => $route->name('late'),
            'add middleware to route' => static fn () => $route->middleware(new TraceMiddleware()),
            'add middleware to group' => static fn () => $group?->middleware(new TraceMiddleware()),
            'add route /g/late' => static fn () => $group?->post('/late', static fn () => null),
        ];
        foreach ($attempts as $what => $attempt) {
            try {
                $attempt();
                self::fail("{$what} after compile should fail");
            } catch (RouteError $e) {
                self::assertStringContainsString("Cannot {$what}", $e->getMessage());
                self::assertStringContainsString('already compiled', $e->getMessage());
            }
        }
        $app->compile(); // idempotent
    }

    public function testCompileReportsConflicts(): void
    {
        $app = $this->app();
        $app->get('/a', static fn () => null)->name('x');
        $app->get('/b', static fn () => null)->name('x');
        $this->expectException(RouteError::class);
        $this->expectExceptionMessage('Route name "x" is used twice');
        $app->compile();
    }

    public function testUrlBeforeAndAfterCompile(): void
    {
        $app = $this->app();
        $app->get('/users/{id:\d+}', static fn () => null)->name('user');
        self::assertSame('/users/5?q=x', $app->url('user', ['id' => 5], ['q' => 'x']));
        $app->compile();
        self::assertSame('/users/6', $app->url('user', ['id' => '6']));
        $this->expectException(RouteError::class);
        $app->url('user', ['id' => 'x']);
    }

    public function testErrors(): void
    {
        $app = $this->app();
        $app->get('/forbidden', static fn () => throw new Forbidden('No <script>', ['X-Why' => 'policy']));
        $app->get('/boom', static fn () => throw new \RuntimeException('secret detail'));
        $app->post('/form', static fn (Request $r) => $r->getParsedBody());

        $forbidden = self::call($app, 'GET', '/forbidden');
        self::assertSame(403, $forbidden->getStatus());
        self::assertSame('policy', $forbidden->getHeader('X-Why'));
        self::assertStringContainsString('No &lt;script&gt;', self::body($forbidden));

        $boom = self::call($app, 'GET', '/boom', ['Accept' => 'application/json']);
        self::assertSame('{"error":{"status":500,"message":"Internal Server Error"}}', self::body($boom));
        self::assertSame(['GET /boom: secret detail'], $this->logged);

        $form = self::call($app, 'POST', '/form', ['Content-Type' => 'multipart/form-data'], 'x');
        self::assertSame(400, $form->getStatus(), 'a Petrel\Http\HttpException keeps its status');
        self::assertCount(1, $this->logged);

        $debug = $this->app(debug: true);
        $debug->get('/boom', static fn () => throw new \RuntimeException('secret <detail>'));
        $page = self::body(self::call($debug, 'GET', '/boom'));
        self::assertStringContainsString('secret &lt;detail&gt;', $page);
        self::assertStringContainsString('RuntimeException', $page);
    }

    public function testRequestScope(): void
    {
        $container = new Container();
        $disposed = [];
        $container->scoped(Item::class, static fn () => new Item(\random_int(1, \PHP_INT_MAX)), static function (Item $item) use (&$disposed): void {
            $disposed[] = $item;
        });
        $app = new App($container);
        $seen = [];
        $app->get('/', static function (Request $request, Item $a, Item $b) use (&$seen): string {
            $scope = Scope::current();
            self::assertNotNull($scope);
            self::assertSame($request, $scope->get(Request::class), 'the scope holds the request the handler sees');
            self::assertSame($a, $b, 'one scoped instance per request');
            self::assertInstanceOf(RouteResult::class, $request->getAttribute(RouteResult::class));
            $seen[] = $a;

            return 'ok';
        });
        $outer = new Scope();
        Context::set(Scope::CONTEXT_KEY, $outer);
        try {
            self::call($app, 'GET', '/');
            self::assertSame($outer, Context::get(Scope::CONTEXT_KEY), 'an enclosing scope is restored');
        } finally {
            Context::delete(Scope::CONTEXT_KEY);
        }
        self::call($app, 'GET', '/');
        self::assertFalse(Context::has(Scope::CONTEXT_KEY), 'no scope is left behind');
        self::assertCount(2, $seen);
        self::assertNotSame($seen[0], $seen[1]);
        self::assertSame($seen, $disposed, 'scoped services are disposed when the request ends');
    }

    public function testAFailingScopeCleanupIsLoggedNotFatal(): void
    {
        $container = new Container();
        $container->scoped(Item::class, static fn () => new Item(1), static fn () => throw new \LogicException('cleanup failed'));
        $app = new App($container);
        $logged = [];
        $app->setErrorLogger(static function (\Throwable $e) use (&$logged): void {
            $logged[] = $e->getMessage();
        });
        $app->get('/', static fn (Item $item) => 'ok');
        self::assertSame('ok', self::body(self::call($app, 'GET', '/')));
        self::assertSame(['cleanup failed'], $logged);
    }

    public function testDefaultContainer(): void
    {
        self::assertInstanceOf(Container::class, (new App())->container());
        $container = new Container();
        self::assertSame($container, (new App($container))->container());
    }
}
