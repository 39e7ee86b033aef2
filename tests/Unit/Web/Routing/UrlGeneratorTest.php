<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Petrel\Web\Routing\Internal\RouteTable;
use Petrel\Web\Routing\RouteError;
use Petrel\Web\Routing\RouteGroup;
use Petrel\Web\Routing\Router;
use Petrel\Web\Routing\UrlGenerator;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(UrlGenerator::class)]
final class UrlGeneratorTest extends TestCase
{
    private RouteTable $table;

    protected function setUp(): void
    {
        $this->table = new RouteTable();
        $r = new RouteGroup($this->table);
        $h = static fn () => null;
        $r->get('/', $h)->name('home');
        $r->get('/users/{id:\d+}', $h)->name('user');
        $r->get('/files/{name}', $h)->name('file');
        $r->get('/raw/{path:.+}', $h)->name('raw');
        $r->get('/café/{x}', $h)->name('cafe');
        $r->get('/blog[/{page:\d+}]', $h)->name('blog');
        $r->get('/archive/{year:\d{4}}[/{month:\d\d}[/{slug}]]', $h)->name('archive');
        $r->get('/unnamed', $h);
    }

    private function urls(): UrlGenerator
    {
        return new UrlGenerator($this->table->all());
    }

    /** @return iterable<string, array{string, array<string, mixed>, array<mixed>, string}> */
    public static function urlCases(): iterable
    {
        yield 'static' => ['home', [], [], '/'];
        yield 'int param' => ['user', ['id' => 5], [], '/users/5'];
        yield 'numeric string' => ['user', ['id' => '42'], [], '/users/42'];
        yield 'query' => ['user', ['id' => 5], ['tab' => 'a b', 'x' => ['1', '2']], '/users/5?tab=a%20b&x%5B0%5D=1&x%5B1%5D=2'];
        yield 'empty query' => ['home', [], [], '/'];
        yield 'null query values dropped' => ['home', [], ['a' => null], '/'];
        yield 'slash encoded' => ['file', ['name' => 'a/b'], [], '/files/a%2Fb'];
        yield 'space and unicode encoded' => ['file', ['name' => 'café au lait'], [], '/files/caf%C3%A9%20au%20lait'];
        yield 'reserved characters encoded' => ['file', ['name' => '?#&=+%'], [], '/files/%3F%23%26%3D%2B%25'];
        // A client resolves dot segments away (RFC 3986 §5.2.4: /files/.. is /): encoded.
        yield 'dot-dot segment encoded' => ['file', ['name' => '..'], [], '/files/%2E%2E'];
        yield 'dot segment encoded' => ['raw', ['path' => '.'], [], '/raw/%2E'];
        yield 'dots inside a segment as they are' => ['file', ['name' => 'a..b'], [], '/files/a..b'];
        yield 'a leading dot as it is' => ['file', ['name' => '.env'], [], '/files/.env'];
        yield 'stringable' => ['file', ['name' => new class () {
            public function __toString(): string
            {
                return 'obj';
            }
        }], [], '/files/obj'];
        yield 'catch-all' => ['raw', ['path' => 'a/b'], [], '/raw/a%2Fb'];
        yield 'unicode literal' => ['cafe', ['x' => 1], [], '/caf%C3%A9/1'];
        yield 'optional left out' => ['blog', [], [], '/blog'];
        yield 'optional given' => ['blog', ['page' => 3], [], '/blog/3'];
        yield 'nested optional, none' => ['archive', ['year' => 2024], [], '/archive/2024'];
        yield 'nested optional, one' => ['archive', ['year' => 2024, 'month' => '05'], [], '/archive/2024/05'];
        yield 'nested optional, all' => ['archive', ['year' => 2024, 'month' => '05', 'slug' => 'hi'], [], '/archive/2024/05/hi'];
    }

    /**
     * @param array<string, string|int|float|\Stringable> $params
     * @param array<mixed> $query
     */
    #[DataProvider('urlCases')]
    public function testGenerate(string $name, array $params, array $query, string $expected): void
    {
        self::assertSame($expected, $this->urls()->generate($name, $params, $query));
    }

    /**
     * Whatever is generated routes back to the same route with the same (decoded) values.
     *
     * @param array<string, string|int|float|\Stringable> $params
     * @param array<mixed> $query
     */
    #[DataProvider('urlCases')]
    public function testRoundTrip(string $name, array $params, array $query): void
    {
        $url = $this->urls()->generate($name, $params);
        $result = (new Router($this->table->all()))->dispatch('GET', $url);
        self::assertSame($name, $result->route?->getName());
        self::assertSame(\array_map('strval', $params), $result->params);
    }

    /** @return iterable<string, array{string, array<string, mixed>, string}> */
    public static function errors(): iterable
    {
        yield 'unknown name' => ['nope', [], 'No route is named "nope"'];
        yield 'missing' => ['user', [], 'Missing parameter(s) "id" for route "user" (/users/{id:\d+})'];
        yield 'unknown param' => ['user', ['id' => 1, 'idd' => 2], 'Unknown parameter(s) "idd" for route "user"'];
        yield 'constraint' => ['user', ['id' => 'abc'], 'Parameter "id" for route "user" (/users/{id:\d+}) must match \d+, got "abc"'];
        yield 'negative vs \d+' => ['user', ['id' => -1], 'must match \d+, got "-1"'];
        yield 'empty value' => ['file', ['name' => ''], 'must match [^/]+, got ""'];
        yield 'nested optional without its parent' => ['archive', ['year' => 2024, 'slug' => 'x'], 'Missing parameter(s) "month"'];
        yield 'constraint sees the encoded text' => ['archive', ['year' => '２０２４'], 'got "２０２４" (encoded "%EF%BC%92'];
        yield 'array value' => ['file', ['name' => ['x']], 'must be a string or number, got array'];
        yield 'bool value' => ['file', ['name' => true], 'must be a string or number, got bool'];
    }

    /** @param array<string, mixed> $params */
    #[DataProvider('errors')]
    public function testErrors(string $name, array $params, string $message): void
    {
        $this->expectException(RouteError::class);
        $this->expectExceptionMessage($message);
        $this->urls()->generate($name, $params);
    }

    public function testPathsWithoutParametersAreTheSameEveryTimeAndErrorsStayErrors(): void
    {
        $urls = $this->urls();
        foreach ([1, 2] as $time) {
            self::assertSame(['/', '/blog', '/blog/3', '/?a=1'], [$urls->generate('home'), $urls->generate('blog'), $urls->generate('blog', ['page' => 3]), $urls->generate('home', [], ['a' => 1])], "call {$time}");
            try {
                $urls->generate('user');
                self::fail('a missing parameter is an error');
            } catch (RouteError $error) {
                self::assertStringContainsString('Missing parameter(s) "id"', $error->getMessage(), "call {$time}");
            }
        }
    }

    public function testDuplicateNamesAreAnError(): void
    {
        (new RouteGroup($this->table))->get('/other', static fn () => null)->name('user');
        $this->expectException(RouteError::class);
        $this->expectExceptionMessage('Route name "user" is used twice: /users/{id:\d+} and /other');
        $this->urls();
    }
}
