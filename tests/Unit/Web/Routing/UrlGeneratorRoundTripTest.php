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

/** A link to a path the router matches can be generated, whatever characters its constraint allows. */
#[CoversClass(UrlGenerator::class)]
final class UrlGeneratorRoundTripTest extends TestCase
{
    /** @return iterable<string, array{string, string, string}> pattern, value, expected path */
    public static function rawCharacterConstraints(): iterable
    {
        yield 'comma list' => ['/tags/{tags:[a-z,]+}', 'php,twig', '/tags/php,twig'];
        yield 'email' => ['/people/{who:[a-z.]+@[a-z.]+}', 'ada@example.org', '/people/ada@example.org'];
        yield 'plus' => ['/tz/{zone:UTC[+-]\d+}', 'UTC+2', '/tz/UTC+2'];
        yield 'colon pair' => ['/range/{range:\d+:\d+}', '10:20', '/range/10:20'];
        yield 'encoded still where the constraint takes it' => ['/q/{q:[^/]+}', 'a,b c', '/q/a%2Cb%20c'];
    }

    #[DataProvider('rawCharacterConstraints')]
    public function testValueWithRawPathCharactersMatchesItsConstraint(string $pattern, string $value, string $path): void
    {
        $table = new RouteTable();
        $route = (new RouteGroup($table))->get($pattern, static fn () => null)->name('r');
        $name = $route->parameterNames()[0][0];

        $url = (new UrlGenerator($table->all()))->generate('r', [$name => $value]);

        self::assertSame($path, $url);
        $result = (new Router($table->all()))->dispatch('GET', $url);
        self::assertSame($route, $result->route, 'the router matches the generated link');
        self::assertSame([$name => $value], $result->params);
    }

    public function testAValueTheConstraintRefusesEitherWayIsStillAnError(): void
    {
        $table = new RouteTable();
        (new RouteGroup($table))->get('/tags/{tags:[a-z,]+}', static fn () => null)->name('tags');

        $this->expectException(RouteError::class);
        $this->expectExceptionMessage('Parameter "tags" for route "tags" (/tags/{tags:[a-z,]+}) must match [a-z,]+, got "a;b"');
        (new UrlGenerator($table->all()))->generate('tags', ['tags' => 'a;b']);
    }
}
