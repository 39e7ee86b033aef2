<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Petrel\Web\Routing\Internal\PathCodec;
use Petrel\Web\Routing\Internal\RouteCompiler;
use Petrel\Web\Routing\Internal\RouteTable;
use Petrel\Web\Routing\RouteError;
use Petrel\Web\Routing\RouteGroup;
use Petrel\Web\Routing\RouteResult;
use Petrel\Web\Routing\Router;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(Router::class)]
#[CoversClass(RouteCompiler::class)]
#[CoversClass(PathCodec::class)]
#[CoversClass(RouteResult::class)]
final class RouterTest extends TestCase
{
    /** @param \Closure(RouteGroup): mixed $define */
    private static function router(\Closure $define): Router
    {
        $table = new RouteTable();
        $define(new RouteGroup($table));

        return new Router($table->all());
    }

    private static function h(): \Closure
    {
        return static fn () => null;
    }

    private static function table(): Router
    {
        return self::router(static function (RouteGroup $r): void {
            $r->get('/', self::h());
            $r->get('/users', self::h());
            $r->get('/users/{id:\d+}', self::h());
            $r->get('/files/{name}', self::h());
            $r->get('/raw/{path:.+}', self::h());
            $r->get('/café', self::h());
            $r->get('/a b', self::h());
            $r->get('/blog[/{page:\d+}]', self::h());
            $r->get('/archive/{year:\d{4}}[/{month:\d\d}[/{slug}]]', self::h());
        });
    }

    /** @return iterable<string, array{string, int, ?string, array<string, string>}> */
    public static function paths(): iterable
    {
        $found = RouteResult::FOUND;
        $missing = RouteResult::NOT_FOUND;
        $bad = RouteResult::BAD_REQUEST;
        yield 'root' => ['/', $found, '/', []];
        yield 'double slash root' => ['//', $missing, null, []];
        yield 'static' => ['/users', $found, '/users', []];
        yield 'trailing slash is strict' => ['/users/', $missing, null, []];
        yield 'leading double slash' => ['//users', $missing, null, []];
        yield 'empty segment' => ['/users//5', $missing, null, []];
        yield 'dynamic' => ['/users/5', $found, '/users/{id:\d+}', ['id' => '5']];
        yield 'dynamic + trailing slash' => ['/users/5/', $missing, null, []];
        yield 'constraint fails' => ['/users/abc', $missing, null, []];
        yield 'leading zeros kept' => ['/users/007', $found, '/users/{id:\d+}', ['id' => '007']];
        yield 'escaped unreserved digit' => ['/users/%35', $found, '/users/{id:\d+}', ['id' => '5']];
        yield '%2F stays in its segment' => ['/files/a%2Fb', $found, '/files/{name}', ['name' => 'a/b']];
        yield 'lower-case escape' => ['/files/a%2fb', $found, '/files/{name}', ['name' => 'a/b']];
        yield 'a real slash does not match [^/]+' => ['/files/a/b', $missing, null, []];
        yield '%20' => ['/files/a%20b', $found, '/files/{name}', ['name' => 'a b']];
        yield 'plus is not a space in paths' => ['/files/a+b', $found, '/files/{name}', ['name' => 'a+b']];
        yield 'utf-8 escaped' => ['/files/caf%C3%A9', $found, '/files/{name}', ['name' => 'café']];
        yield 'utf-8 raw' => ['/files/café', $found, '/files/{name}', ['name' => 'café']];
        yield 'emoji' => ['/files/%F0%9F%90%A6', $found, '/files/{name}', ['name' => '🐦']];
        yield 'invalid utf-8' => ['/files/%FF', $bad, null, []];
        yield 'truncated utf-8' => ['/files/%C3', $bad, null, []];
        yield 'overlong utf-8' => ['/files/%C0%AF', $bad, null, []];
        yield 'NUL' => ['/files/a%00b', $bad, null, []];
        yield 'lone percent' => ['/files/100%', $found, '/files/{name}', ['name' => '100%']];
        yield 'bad escape' => ['/files/%zz', $found, '/files/{name}', ['name' => '%zz']];
        yield 'dot-dot is a plain segment' => ['/files/..', $found, '/files/{name}', ['name' => '..']];
        yield 'escaped dot-dot' => ['/files/%2E%2E', $found, '/files/{name}', ['name' => '..']];
        yield 'dot-dot between segments is not resolved' => ['/users/../users', $missing, null, []];
        yield 'catch-all' => ['/raw/a/b/c', $found, '/raw/{path:.+}', ['path' => 'a/b/c']];
        yield 'catch-all with %2F' => ['/raw/a%2Fb/c', $found, '/raw/{path:.+}', ['path' => 'a/b/c']];
        yield 'static utf-8 pattern, escaped' => ['/caf%C3%A9', $found, '/café', []];
        yield 'static utf-8 pattern, lower-case escape' => ['/caf%c3%a9', $found, '/café', []];
        yield 'static utf-8 pattern, raw' => ['/café', $found, '/café', []];
        yield 'static pattern with space, escaped' => ['/a%20b', $found, '/a b', []];
        yield 'static pattern with space, raw' => ['/a b', $found, '/a b', []];
        yield 'escaped letter in static path' => ['/%75sers', $found, '/users', []];
        yield 'escaped slash is not a separator' => ['%2Fusers', $missing, null, []];
        yield 'case-sensitive' => ['/Users', $missing, null, []];
        yield 'optional left out' => ['/blog', $found, '/blog[/{page:\d+}]', []];
        yield 'optional given' => ['/blog/2', $found, '/blog[/{page:\d+}]', ['page' => '2']];
        yield 'optional, trailing slash' => ['/blog/', $missing, null, []];
        yield 'optional, constraint fails' => ['/blog/x', $missing, null, []];
        yield 'nested optional, none' => ['/archive/2024', $found, '/archive/{year:\d{4}}[/{month:\d\d}[/{slug}]]', ['year' => '2024']];
        yield 'nested optional, one' => ['/archive/2024/05', $found, '/archive/{year:\d{4}}[/{month:\d\d}[/{slug}]]', ['year' => '2024', 'month' => '05']];
        yield 'nested optional, both' => ['/archive/2024/05/hi', $found, '/archive/{year:\d{4}}[/{month:\d\d}[/{slug}]]', ['year' => '2024', 'month' => '05', 'slug' => 'hi']];
        yield 'brace quantifier' => ['/archive/202', $missing, null, []];
        yield 'query string is not part of the path' => ['/users?page=2', $missing, null, []];
        yield 'empty path (CONNECT)' => ['', $missing, null, []];
        yield 'asterisk (OPTIONS *)' => ['*', $missing, null, []];
        yield 'very long segment' => ['/files/' . \str_repeat('a', 10000), $found, '/files/{name}', ['name' => \str_repeat('a', 10000)]];
        yield 'very long catch-all' => ['/raw/' . \str_repeat('ab/', 5000), $found, '/raw/{path:.+}', ['path' => \str_repeat('ab/', 5000)]];
        yield 'very long miss' => [\str_repeat('/x', 5000), $missing, null, []];
        yield 'very long number' => ['/users/' . \str_repeat('9', 5000), $found, '/users/{id:\d+}', ['id' => \str_repeat('9', 5000)]];
    }

    /** @param array<string, string> $params */
    #[DataProvider('paths')]
    public function testTrickyPaths(string $path, int $status, ?string $pattern, array $params): void
    {
        $result = self::table()->dispatch('GET', $path);
        self::assertSame($status, $result->status);
        self::assertSame($pattern, $result->route?->getPattern());
        self::assertSame($params, $result->params);
    }

    public function testStaticRoutesBeatDynamicOnesAndDynamicOnesGoInOrder(): void
    {
        $router = self::router(static function (RouteGroup $r): void {
            $r->get('/users/{name}', self::h())->name('first');
            $r->get('/users/{id:\d+}', self::h())->name('second');
            $r->get('/users/me', self::h())->name('static');
        });
        self::assertSame('static', $router->dispatch('GET', '/users/me')->route?->getName());
        self::assertSame('first', $router->dispatch('GET', '/users/42')->route?->getName());
    }

    public function testHeadFallsBackToGetUnlessAHeadRouteMatches(): void
    {
        $router = self::router(static function (RouteGroup $r): void {
            $r->get('/a', self::h())->name('get a');
            $r->get('/b/{x}', self::h())->name('get b');
            $r->map('HEAD', '/b/{x}', self::h())->name('head b');
        });
        self::assertSame('get a', $router->dispatch('HEAD', '/a')->route?->getName());
        self::assertSame('head b', $router->dispatch('HEAD', '/b/1')->route?->getName());
        self::assertSame('get b', $router->dispatch('GET', '/b/1')->route?->getName());
    }

    public function testMethodNotAllowedListsTheMethodsThatMatch(): void
    {
        $router = self::router(static function (RouteGroup $r): void {
            $r->get('/items', self::h());
            $r->post('/items', self::h());
            $r->delete('/items/{id}', self::h());
            $r->put('/items/{id:\d+}', self::h());
            $r->map(['PATCH', 'get'], '/other/{id}', self::h());
        });
        $result = $router->dispatch('PUT', '/items');
        self::assertSame(RouteResult::METHOD_NOT_ALLOWED, $result->status);
        self::assertSame(['GET', 'HEAD', 'POST'], $result->allowedMethods);
        self::assertSame(['DELETE', 'PUT'], $router->dispatch('GET', '/items/5')->allowedMethods);
        self::assertSame(['DELETE'], $router->dispatch('GET', '/items/x')->allowedMethods);
        self::assertSame(['GET', 'HEAD', 'PATCH'], $router->dispatch('POST', '/other/1')->allowedMethods);
        self::assertSame(RouteResult::NOT_FOUND, $router->dispatch('HEAD', '/nothing')->status);
        self::assertSame(RouteResult::NOT_FOUND, $router->dispatch('GET', '/nothing')->status);
        self::assertSame(RouteResult::FOUND, $router->dispatch('HEAD', '/items')->status);
        self::assertSame(RouteResult::FOUND, $router->dispatch('HEAD', '/other/1')->status);
    }

    public function testMethodsAreCaseSensitiveOnRequestsButNormalizedAtRegistration(): void
    {
        $router = self::router(static fn (RouteGroup $r) => $r->map('post', '/x', self::h()));
        self::assertSame(RouteResult::FOUND, $router->dispatch('POST', '/x')->status);
        self::assertSame(RouteResult::METHOD_NOT_ALLOWED, $router->dispatch('post', '/x')->status);
    }

    public function testAnyMethodRoutesComeAfterMethodSpecificOnes(): void
    {
        $router = self::router(static function (RouteGroup $r): void {
            $r->any('/thing/{id}', self::h())->name('any');
            $r->get('/thing/{id}', self::h())->name('get');
            $r->post('/only-post', self::h())->name('post');
        });
        self::assertSame('get', $router->dispatch('GET', '/thing/1')->route?->getName());
        self::assertSame('get', $router->dispatch('HEAD', '/thing/1')->route?->getName());
        $purge = $router->dispatch('PURGE', '/thing/1')->route;
        self::assertNotNull($purge);
        self::assertSame('any', $purge->getName());
        self::assertSame(['*'], $purge->getMethods());
        self::assertSame(['POST'], $router->dispatch('GET', '/only-post')->allowedMethods);
    }

    public function testManyDynamicRoutesAcrossChunks(): void
    {
        $count = RouteCompiler::CHUNK_SIZE * 3 + 7;
        $router = self::router(static function (RouteGroup $r) use ($count): void {
            for ($i = 0; $i < $count; $i++) {
                $r->get("/r{$i}/{a}/{b:\\d+}", self::h())->name("h{$i}");
                $r->get("/s{$i}/{a}", self::h())->name("s{$i}");
            }
        });
        for ($i = 0; $i < $count; $i++) {
            $result = $router->dispatch('GET', "/r{$i}/x{$i}/{$i}");
            self::assertSame("h{$i}", $result->route?->getName());
            self::assertSame(['a' => "x{$i}", 'b' => (string) $i], $result->params);
            self::assertSame("s{$i}", $router->dispatch('GET', "/s{$i}/y")->route?->getName());
        }
        self::assertFalse($router->dispatch('GET', '/r0/x/y')->isFound());
    }

    public function testTheSameRouteTwiceIsAnError(): void
    {
        $this->expectException(RouteError::class);
        $this->expectExceptionMessage('GET /users/{id} is defined twice (the second time as "/users/{user}")');
        self::router(static function (RouteGroup $r): void {
            $r->get('/users/{id}', self::h())->name('a');
            $r->get('/users/{user}', self::h())->name('b');
        });
    }

    public function testAStaticVariantTwiceIsAnError(): void
    {
        $this->expectException(RouteError::class);
        self::router(static function (RouteGroup $r): void {
            $r->get('/blog', self::h())->name('a');
            $r->get('/blog[/{page}]', self::h())->name('b');
        });
    }

    public function testSamePathForDifferentMethodsIsFine(): void
    {
        $router = self::router(static function (RouteGroup $r): void {
            $r->get('/caf%C3%A9', self::h())->name('get');
            $r->post('/café', self::h())->name('post');
        });
        self::assertSame('post', $router->dispatch('POST', '/caf%c3%a9')->route?->getName());
    }

    public function testParamAccessor(): void
    {
        $result = self::table()->dispatch('GET', '/users/5');
        self::assertSame('5', $result->param('id'));
        self::assertNull($result->param('nope'));
        self::assertSame('d', $result->param('nope', 'd'));
    }

    #[DataProvider('canonicalForms')]
    public function testCanonicalForm(string $raw, string $canonical): void
    {
        self::assertSame($canonical, PathCodec::canonicalize($raw));
        self::assertSame($canonical === $raw, PathCodec::isCanonical($raw) && !\str_contains($raw, '%'));
    }

    /** @return iterable<array{string, string}> */
    public static function canonicalForms(): iterable
    {
        yield ['/plain/path-_.~', '/plain/path-_.~'];
        yield ["/a b\x7f", '/a%20b%7F'];
        yield ['/%7e%41%2f%2F%c3%A9', '/~A%2F%2F%C3%A9'];
        yield ['/%', '/%25'];
        yield ['/%4', '/%254'];
        yield ['/é', '/%C3%A9'];
        yield ["/\0", '/%00'];
        yield ['/!$&\'()*+,;=:@', '/!$&\'()*+,;=:@'];
        yield ['/"<>\\^`{|}', '/%22%3C%3E%5C%5E%60%7B%7C%7D'];
    }
}
