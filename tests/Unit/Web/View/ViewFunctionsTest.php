<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\Internal\DirectFunctionExpression;
use Petrel\Web\View\Internal\ViewFunctions;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Twig\Environment;
use Twig\TwigFunction;

/**
 * Functions added with View::addFunction() are called directly by the compiled templates
 * (DirectFunctionExpression): the output and the errors must be plain Twig's, for every
 * kind of callable and way of passing arguments.
 */
#[CoversClass(View::class)]
#[CoversClass(ViewFunctions::class)]
#[CoversClass(DirectFunctionExpression::class)]
final class ViewFunctionsTest extends TestCase
{
    /** @var list<string> */
    private array $cleanup = [];

    protected function tearDown(): void
    {
        foreach ($this->cleanup as $dir) {
            TemplateDir::remove($dir);
        }
    }

    /** @return iterable<string, array{string}> */
    public static function templates(): iterable
    {
        yield 'positional' => ['{{ url("post", 7) }}'];
        yield 'named' => ['{{ url(id: 7, route: "post") }}'];
        yield 'a default left out' => ['{{ url("post") }}'];
        yield 'named after positional' => ['{{ url("post", query: {a: 1}) }}'];
        yield 'escaped result' => ['{{ tag("<b>") }}'];
        yield 'safe result' => ['{{ safe("<b>") }}'];
        yield 'raw result' => ['{{ tag("<b>")|raw }}'];
        yield 'in an expression' => ['{{ url("a") ~ "|" ~ url("b", 2) }}'];
        yield 'as an argument' => ['{{ tag(url("x", 1)) }}'];
        yield 'in a filter' => ['{{ url("post", 7)|upper }}'];
        yield 'in a loop' => ['{% for i in 1..3 %}{{ url("p", i) }};{% endfor %}'];
        yield 'in a condition' => ['{% if url("p") starts with "/p" %}yes{% endif %}'];
        yield 'method of an object' => ['{{ counter() }}{{ counter() }}'];
        yield 'function name' => ['{{ upper("abc") }}'];
        yield 'static method' => ['{{ hex(255) }}'];
        yield 'dynamic name' => ['{{ link_home("x") }}|{{ link_about("y") }}'];
        yield 'no arguments' => ['{{ now() }}'];
    }

    #[DataProvider('templates')]
    public function testTheOutputIsPlainTwigs(string $source): void
    {
        $view = $this->view(['t.twig' => $source]);
        $twig = ArrayTwig::create(['t.twig' => $source]);
        foreach (self::functions() as [$name, $function, $safe]) {
            $twig->addFunction(new TwigFunction($name, $function, $safe ? ['is_safe' => ['html']] : []));
        }

        self::assertSame($twig->render('t.twig'), $view->render('t.twig'));
    }

    public function testTheCompiledTemplateCallsTheFunctionWithoutLookingItUp(): void
    {
        $dir = new TemplateDir(['t.twig' => '{{ url("post", 7) }}|{{ upper("x") }}']);
        $cache = new TemplateDir();
        $this->cleanup = [$dir->path, $cache->path];
        $view = new View($dir->path, cacheDir: $cache->path);
        $view->addFunction('url', self::functions()[0][1]);
        $view->addFunction('upper', 'strtoupper');

        self::assertSame('/post/7|X', $view->render('t.twig'));
        $compiled = \implode('', \array_map('file_get_contents', self::phpFiles($cache->path)));
        self::assertStringContainsString('->callables["url"])("post", 7)', $compiled);
        self::assertStringContainsString('->callables["upper"])("x")', $compiled);
        self::assertStringNotContainsString('getFunction(', $compiled);
    }

    public function testAnExceptionFromTheFunctionIsReportedAsTwigReportsIt(): void
    {
        $source = "line 1\n{{ fail(3) }}";
        $fail = static fn (int $code): string => throw new \DomainException('no', $code);
        $view = $this->view(['t.twig' => $source]);
        $view->addFunction('fail', $fail);
        $twig = ArrayTwig::create(['t.twig' => $source]);
        $twig->addFunction(new TwigFunction('fail', $fail));

        $expected = self::failure(static fn () => $twig->render('t.twig'));
        $actual = self::failure(static fn () => $view->render('t.twig'));

        self::assertSame($expected::class, $actual::class);
        self::assertSame($expected->getMessage(), $actual->getMessage());
        self::assertInstanceOf(\DomainException::class, $actual->getPrevious());
        self::assertSame(3, $actual->getPrevious()->getCode());
    }

    public function testAMisusedArgumentIsTwigsSyntaxError(): void
    {
        $source = '{{ url(nope: 1) }}';
        $twig = ArrayTwig::create(['t.twig' => $source]);
        $twig->addFunction(new TwigFunction('url', self::functions()[0][1]));

        $expected = self::failure(static fn () => $twig->render('t.twig'));
        $actual = self::failure(fn () => $this->view(['t.twig' => $source])->render('t.twig'));

        self::assertInstanceOf(\Twig\Error\SyntaxError::class, $actual);
        self::assertSame($expected->getMessage(), $actual->getMessage());
    }

    public function testEachViewCallsItsOwnFunctionsFromTheSameCompiledTemplate(): void
    {
        // Same directory, same extensions: the second View uses the class the first compiled.
        $dir = new TemplateDir(['t.twig' => '{{ site() }}']);
        $this->cleanup = [$dir->path];
        $first = new View($dir->path);
        $first->addFunction('site', static fn (): string => 'first');
        $second = new View($dir->path);
        $second->addFunction('site', static fn (): string => 'second');

        self::assertSame('first', $first->render('t.twig'));
        self::assertSame('second', $second->render('t.twig'));
        self::assertSame('first', $first->render('t.twig'));
    }

    public function testAPureFunctionCalledWithConstantArgumentsRunsOnce(): void
    {
        $source = '{{ url("a") }}|{{ url("a") }}|{{ url(route: "b") }}|{% for i in 1..2 %}{{ url("p", i) }}{% endfor %}|{{ link_home("x") }}|{{ stamp() }}';
        $calls = [];
        $url = static function (string $route, int $id = 0) use (&$calls): string {
            $calls[] = "{$route}{$id}";

            return "/{$route}/{$id}";
        };
        $link = static function (string $page, string $text) use (&$calls): string {
            $calls[] = "link {$page}";

            return "<a href=/{$page}>{$text}</a>";
        };
        $stamp = 0;
        $view = $this->view(['t.twig' => $source], functions: false);
        $view->addFunction('url', $url, pure: true);
        $view->addFunction('link_*', $link, safeHtml: true, pure: true);
        $view->addFunction('stamp', static function () use (&$stamp): int {
            return ++$stamp;
        });

        $expected = '/a/0|/a/0|/b/0|/p/1/p/2|<a href=/home>x</a>|';
        self::assertSame($expected . '1', $view->render('t.twig'));
        self::assertSame($expected . '2', $view->render('t.twig'));
        self::assertSame($expected . '3', $view->render('t.twig'));
        // url("a") (twice in the template, one call), url(route: "b") and link_home("x")
        // once; url("p", i) takes a variable: every time. stamp() is not pure: every time.
        self::assertSame(['a0', 'b0', 'p1', 'p2', 'link home', 'p1', 'p2', 'p1', 'p2'], $calls);
    }

    public function testAFailingPureCallIsNotRemembered(): void
    {
        $calls = 0;
        $view = $this->view(['t.twig' => "line 1\n{{ fail(3) }}"], functions: false);
        $view->addFunction('fail', static function (int $code) use (&$calls): string {
            ++$calls;
            throw new \DomainException('no', $code);
        }, pure: true);

        $first = self::failure(static fn () => $view->render('t.twig'));
        $second = self::failure(static fn () => $view->render('t.twig'));

        self::assertSame(2, $calls);
        self::assertSame($first->getMessage(), $second->getMessage());
        self::assertStringContainsString('"t.twig" at line 2', $second->getMessage());
    }

    public function testPureResultsAreBoundedAndForgettingOneOnlyCallsTheFunctionAgain(): void
    {
        // More constant call sites than the View remembers results for (1,024).
        $sites = 1100;
        $source = '';
        for ($i = 0; $i < $sites; ++$i) {
            $source .= "{{ url('r{$i}') }},";
        }
        $calls = 0;
        $view = $this->view(['t.twig' => $source], functions: false);
        $view->addFunction('url', static function (string $route) use (&$calls): string {
            ++$calls;

            return "/{$route}";
        }, pure: true);
        $functions = $view->environment()->getExtension(ViewFunctions::class);
        \assert($functions instanceof ViewFunctions);
        $expected = \implode('', \array_map(static fn (int $i): string => "/r{$i},", \range(0, $sites - 1)));

        for ($render = 1; $render <= 3; ++$render) {
            self::assertSame($expected, $view->render('t.twig'), "render {$render}");
            self::assertLessThanOrEqual(1024, \count($functions->results), "results kept after render {$render}");
        }
        // Results were forgotten (the function ran again for some sites), never more than
        // once per site and render.
        self::assertGreaterThan($sites, $calls);
        self::assertLessThanOrEqual(3 * $sites, $calls);
    }

    public function testAViewWhoseFunctionIsNotPureDoesNotRememberThroughAClassCompiledWhereItIs(): void
    {
        // Same directory, same extensions: the second View uses the class the first compiled.
        $dir = new TemplateDir(['t.twig' => '{{ site("x") }}']);
        $this->cleanup = [$dir->path];
        $first = new View($dir->path);
        $first->addFunction('site', static fn (string $x): string => 'first', pure: true);
        $calls = 0;
        $second = new View($dir->path);
        $second->addFunction('site', static function (string $x) use (&$calls): string {
            return 'second ' . ++$calls;
        });

        self::assertSame('first', $first->render('t.twig'));
        self::assertSame('second 1', $second->render('t.twig'));
        self::assertSame('second 2', $second->render('t.twig'));
        self::assertSame('first', $first->render('t.twig'));
    }

    /**
     * The functions both environments get: name, callable, safe HTML.
     *
     * @return list<array{string, callable, bool}>
     */
    private static function functions(): array
    {
        $counter = new class () {
            private int $calls = 0;

            public function next(): int
            {
                return ++$this->calls;
            }
        };

        return [
            ['url', static fn (string $route, int $id = 0, array $query = []): string => "/{$route}/{$id}" . ($query === [] ? '' : '?' . \http_build_query($query)), false],
            ['tag', static fn (string $text): string => "<i>{$text}</i>", false],
            ['safe', static fn (string $text): string => "<i>{$text}</i>", true],
            ['counter', [$counter, 'next'], false],
            ['upper', 'strtoupper', false],
            ['hex', self::class . '::hex', false],
            ['link_*', static fn (string $page, string $text): string => "<a href=/{$page}>{$text}</a>", true],
            ['now', static fn (): string => 'now', false],
        ];
    }

    public static function hex(int $value): string
    {
        return \dechex($value);
    }

    /**
     * @param array<string, string> $templates
     * @param bool $functions with the functions of functions()
     */
    private function view(array $templates, bool $functions = true): View
    {
        $dir = new TemplateDir($templates);
        $this->cleanup[] = $dir->path;
        $view = new View($dir->path);
        foreach ($functions ? self::functions() : [] as [$name, $function, $safe]) {
            $view->addFunction($name, $function, $safe);
        }

        return $view;
    }

    private static function failure(\Closure $render): \Throwable
    {
        try {
            $render();
        } catch (\Throwable $error) {
            return $error;
        }
        self::fail('Expected the render to fail');
    }

    /** @return list<string> */
    private static function phpFiles(string $dir): array
    {
        $files = [];
        foreach (new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($dir, \FilesystemIterator::SKIP_DOTS)) as $file) {
            if ($file instanceof \SplFileInfo && $file->getExtension() === 'php') {
                $files[] = $file->getPathname();
            }
        }

        return $files;
    }
}
