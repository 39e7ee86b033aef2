<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Petrel\Web\Routing\Internal\RouteParser;
use Petrel\Web\Routing\RouteError;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(RouteParser::class)]
final class RouteParserTest extends TestCase
{
    /** @return iterable<string, array{string, list<list<string|array{string, string}>>}> */
    public static function patterns(): iterable
    {
        yield 'root' => ['/', [['/']]];
        yield 'static' => ['/users/all', [['/users/all']]];
        yield 'placeholder' => ['/users/{id}', [['/users/', ['id', '[^/]+']]]];
        yield 'constraint with spaces' => ['/users/{ id : \d+ }', [['/users/', ['id', '\d+']]]];
        yield 'constraint with braces' => ['/y/{year:\d{4}}-{m:\d{1,2}}', [['/y/', ['year', '\d{4}'], '-', ['m', '\d{1,2}']]]];
        yield 'constraint with brackets' => ['/c/{code:[a-z]{2}}', [['/c/', ['code', '[a-z]{2}']]]];
        yield 'two in a segment' => ['/{a}.{b}', [['/', ['a', '[^/]+'], '.', ['b', '[^/]+']]]];
        yield 'literal after' => ['/u/{id}/edit', [['/u/', ['id', '[^/]+'], '/edit']]];
        yield 'optional' => ['/blog[/{page}]', [['/blog'], ['/blog/', ['page', '[^/]+']]]];
        yield 'nested optional' => ['/a[/{b}[/{c}]]', [['/a'], ['/a/', ['b', '[^/]+']], ['/a/', ['b', '[^/]+'], '/', ['c', '[^/]+']]]];
        yield 'optional literal' => ['/feed[.xml]', [['/feed'], ['/feed.xml']]];
        yield 'optional with constraint bracket' => ['/x[/{c:[a-z]+}]', [['/x'], ['/x/', ['c', '[a-z]+']]]];
        yield 'unicode literal is canonicalized' => ['/café/{x}', [['/caf%C3%A9/', ['x', '[^/]+']]]];
        yield 'escaped literal is canonicalized' => ['/caf%c3%a9', [['/caf%C3%A9']]];
        yield 'empty constraint means default' => ['/{x:}', [['/', ['x', '[^/]+']]]];
    }

    /** @param list<list<string|array{string, string}>> $variants */
    #[DataProvider('patterns')]
    public function testParse(string $pattern, array $variants): void
    {
        self::assertSame($variants, RouteParser::parse($pattern));
    }

    /** @return iterable<string, array{string, string}> */
    public static function malformed(): iterable
    {
        yield 'no leading slash' => ['users', 'must start with "/"'];
        yield 'empty' => ['', 'must start with "/"'];
        yield 'optional in the middle' => ['/a[/b]/c', 'optional segments can only occur at the end'];
        yield 'unbalanced open' => ['/a[/b', 'unbalanced'];
        yield 'unbalanced close' => ['/a/b]', 'unbalanced'];
        yield 'empty optional' => ['/a[]', 'empty optional part'];
        yield 'duplicate name' => ['/{id}/{id}', 'parameter "id" appears twice'];
        yield 'duplicate name across optional' => ['/{id}[/{id}]', 'parameter "id" appears twice'];
        yield 'capturing group' => ['/{lang:(en|de)}', 'capturing group'];
        yield 'named group' => ['/{lang:(?<l>en)}', 'capturing group'];
        yield 'invalid regex' => ['/{x:[a-}', 'invalid regex for "x"'];
        yield 'unclosed placeholder' => ['/{x', 'unexpected "/{x"'];
        yield 'bad name' => ['/{1x}', 'unexpected'];
        yield 'query in pattern' => ['/a?b', 'unexpected'];
    }

    #[DataProvider('malformed')]
    public function testMalformed(string $pattern, string $message): void
    {
        $this->expectException(RouteError::class);
        $this->expectExceptionMessage($message);
        RouteParser::parse($pattern);
    }

    public function testNonCapturingGroupsAndLookaroundsAreFine(): void
    {
        self::assertSame([['/', ['lang', '(?:en|de)(?=x)?']]], RouteParser::parse('/{lang:(?:en|de)(?=x)?}'));
    }
}
