<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\View\Internal\ConcatenatedOutputNode;
use Petrel\Web\View\Internal\ConcatenatingOutputVisitor;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use Twig\Environment;
use Twig\Error\RuntimeError;
use Twig\Extension\AbstractExtension;
use Twig\Extension\SandboxExtension;
use Twig\Loader\ArrayLoader;
use Twig\Markup;
use Twig\Sandbox\SecurityPolicy;
use Twig\TwigFilter;
use Twig\TwigFunction;

use function Petrel\go;
use function Petrel\sleep;

/**
 * Runs of text and `{{ ... }}` compiled as one `yield` render the same bytes as Twig's one
 * yield each, in the same order, with the same errors at the same template lines.
 */
#[CoversClass(ConcatenatingOutputVisitor::class)]
#[CoversClass(ConcatenatedOutputNode::class)]
#[CoversClass(View::class)]
final class ConcatenatingOutputVisitorTest extends AsyncTestCase
{
    /** Templates every case can include, extend, use or import. */
    public const LIBRARY = [
        'layout' => "<!DOCTYPE html>\n<title>{% block title %}{{ site }}{% endblock %}</title>\n<main>{% block body %}{% endblock %}</main>\n"
            . "<footer>{% block footer %}by {{ site }}{% endblock %}</footer>\n",
        'part' => "<aside>{{ name }} ({{ n }})</aside>\n",
        'macros' => "{% macro tag(name, body) %}<{{ name }}>{{ body }}</{{ name }}>{% endmacro %}",
        // Blocks and text without nodes in it (two text nodes, around a comment): usable with `use`.
        'blocks' => "{% block a %}A{{ name }}{% endblock %} text {# a comment #} text {% block b %}B{% endblock %}\n",
    ];

    /** @return iterable<string, array{string}> */
    public static function templates(): iterable
    {
        yield 'text and prints' => ["<h2>Hello, {{ name }}!</h2>\n<p>#{{ n }} {{ n + 1 }}{{ 'lit' }}{{ 5 }}{{ 2.5 }}{{ true }}{{ false }}</p>"];
        yield 'expressions' => ["{{ name ~ '!' }}|{{ n > 1 ? 'many' : 'one' }}|{{ missing ?? 'default' }}|{{ name|upper }}|{{ n is odd ? 'odd' }}|{{ [1, 2]|join(',') }}|{{ {a: 1}|json_encode }}"];
        yield 'if and for' => ["a{% if n > 1 %}b{{ name }}c{% else %}d{% endif %}e{% for i in 1..3 %}[{{ i }}{{ loop.index }}]{% else %}none{% endfor %}f{{ name }}"];
        yield 'for over nothing' => ["a{% for i in [] %}[{{ i }}]{% else %}none {{ name }}{% endfor %}z"];
        yield 'set and capture' => ["{% set x = name %}{{ x }}-{% set y %}<{{ name }}>{{ n }}{% endset %}{{ y }}|{{ y|length }}"];
        yield 'apply' => ["{% apply upper %}a{{ name }}b{% endapply %}-{% apply spaceless %} <b> {{ name }} </b> {% endapply %}"];
        yield 'extends and blocks' => ["{% extends 'layout' %}{% block title %}T {{ name }} · {{ parent() }}{% endblock %}{% block body %}<p>{{ name }}</p>{{ block('title') }}<p>{{ n }}</p>{% endblock %}"];
        yield 'include' => ["<body>{{ name }}{% include 'part' %}{{ n }}{{ include('part') }}</body>"];
        yield 'use' => ["{% use 'blocks' %}[{{ block('a') }}|{{ block('b') }}]{{ name }}"];
        yield 'macros' => ["{% import 'macros' as m %}{% macro local(x) %}({{ x }}){% endmacro %}{{ m.tag('b', name) }}-{{ _self.local(n) }}-{{ m.tag('i', html) }}"];
        yield 'autoescape off and raw' => ["{% autoescape false %}{{ html }}|{{ name }}{% endautoescape %}|{{ html|raw }}|{{ html }}|{{ markup }}|{{ markup|e }}"];
        yield 'other escapers' => ["<script>var s = '{{ html|e('js') }}';</script><a href=\"?q={{ html|e('url') }}\" title=\"{{ html|e('html_attr') }}\">{{ html|e('css') }}</a>"];
        yield 'null and empty' => ["[{{ nothing }}][{{ empty }}][{{ nothing|default('d') }}][{{ nothing ~ 'x' }}][{{ nothing|raw }}]"];
        yield 'Markup and Stringable' => ["{{ markup }}|{{ stringable }}|{{ stringable|raw }}|{{ markup ~ stringable }}|{{ stringable|upper }}"];
        yield 'special characters' => ["\"quotes\" 'single' \$dollar {\$brace} \\backslash \0nul \t\ttabs\n{{ html }}\r\n{{ \"\$not {{ a }} var\" }}"];
        yield 'comments and whitespace control' => ["a {# c #} {{ name }} {#- c -#} b\n  {{- n -}}  \n{%- if true %} c {% endif -%} d"];
        yield 'verbatim' => ["{% verbatim %}{{ not }}{% endverbatim %}{{ name }}"];
        yield 'with' => ["{% with {name: 'other'} %}{{ name }}!{% endwith %}{{ name }}"];
        yield 'embed' => ["x{% embed 'layout' %}{% block body %}E{{ name }}{% endblock %}{% endembed %}y"];
    }

    #[DataProvider('templates')]
    public function testSameOutputAsTwig(string $template): void
    {
        foreach ([false, true] as $debug) {
            [$twig, $merged] = [self::environment($template, false, $debug), self::environment($template, true, $debug)];

            self::assertSame($twig->render('t', self::data()), $merged->render('t', self::data()), $debug ? 'debug' : 'not debug');
        }
    }

    public function testTheSameThroughAViewAsInPlainTwig(): void
    {
        $dir = new TemplateDir(self::LIBRARY + ['page' => "{% extends 'layout' %}{% block body %}{% import 'macros' as m %}"
            . "<h2>Hello, {{ name }}!</h2>\n{{ m.tag('p', html) }}{% include 'part' %}{% for i in 1..2 %}<i>{{ i }}{{ markup }}</i>{% endfor %}{% endblock %}"]);
        try {
            $twig = new Environment(new ArrayLoader(self::LIBRARY + ['page' => (string) \file_get_contents($dir->path . '/page')]), ['use_yield' => true, 'autoescape' => 'html', 'cache' => false]);
            $view = new View($dir->path);

            $expected = $twig->render('page', self::data());
            self::assertStringContainsString('<h2>Hello, &lt;Ada&gt;!</h2>', $expected);
            self::assertSame($expected, $view->render('page', self::data()));
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    public function testARunIsCompiledAsOneYield(): void
    {
        $template = "<h2>Hello, {{ name }}!</h2>\n<p>Member #{{ n }} · {{ html }}</p>\n{% if n %}{{ n }}{% endif %}";

        // Twig: 7 yields for the run (4 texts, 3 prints), 1 in the if.
        self::assertSame(8, \substr_count(self::compiled($template, false), 'yield '));
        self::assertSame(2, \substr_count(self::compiled($template, true), 'yield '));
        self::assertMatchesRegularExpression('/yield "<h2>Hello, "\s+\. \(\(string\) [^\n]+\)\s+\. "!<\/h2>\\n<p>Member #"/', self::compiled($template, true));
    }

    public function testBlockReferencesAndIncludesEndARun(): void
    {
        $template = "a{{ n }}{% block x %}b{{ n }}{% endblock %}c{{ n }}{% include 'part' %}d{{ n }}";

        // Four runs of two (three in the body, one in the block): a yield each, and the
        // block's `yield from` and the include's between them.
        $compiled = self::compiled($template, true);
        self::assertSame(4, \substr_count($compiled, 'yield "'), $compiled);
        self::assertSame(2, \substr_count($compiled, 'yield from $this'), $compiled);
    }

    public function testNotUnderTheSandbox(): void
    {
        $template = "<h2>Hello, {{ name }}!</h2>";
        $twig = self::environment($template, true);
        $twig->addExtension(new SandboxExtension(new SecurityPolicy(), true));

        self::assertSame(3, \substr_count(ArrayTwig::compiled($twig, 't'), 'yield '));
    }

    /** @return iterable<string, array{string, int}> a template that throws, and the line it throws on */
    public static function failures(): iterable
    {
        yield 'a function, first piece' => ["<p>\n{{ boom() }} and {{ name }}</p>", 2];
        yield 'a function, later piece' => ["<p>{{ name }}\n{{ name }}\nis {{ boom() }} and {{ name }}</p>", 3];
        yield 'a function, after text over lines' => ["<p>{{ name }}\n\n\n</p><p>\n{{ name }} {{ name|upper }} {{ boom() }}</p>", 5];
        yield 'a filter, later piece' => ["{{ name }}\n{{ n }}\n{{ name|explode }}", 3];
        yield 'a __toString() that throws' => ["{{ name }}\n<b>{{ name }}</b>{{ throwing|raw }}", 2];
        yield 'not convertible to a string' => ["{{ name }}\n\n<b>{{ name }}</b>{{ object|raw }}", 3];
    }

    #[DataProvider('failures')]
    public function testAnExceptionInARunIsTwigsRuntimeErrorAtTheSameLine(string $template, int $line): void
    {
        $errors = [];
        foreach ([false, true] as $merged) {
            try {
                self::environment($template, $merged)->render('t', self::data());
                self::fail('no exception');
            } catch (RuntimeError $error) {
                $errors[] = [$error->getMessage(), $error->getSourceContext()?->getName(), $error->getTemplateLine()];
            }
        }

        self::assertSame($errors[0], $errors[1]);
        self::assertSame('t', $errors[1][1]);
        self::assertSame($line, $errors[1][2], $errors[1][0]);
    }

    public function testWithStrictVariablesAnUndefinedVariableIsReportedAtItsLine(): void
    {
        $errors = [];
        foreach ([false, true] as $merged) {
            try {
                self::environment("{{ name }}\n{{ n }}\n{{ undefined }}{{ n }}", $merged, debug: true)->render('t', self::data());
                self::fail('no exception');
            } catch (RuntimeError $error) {
                $errors[] = $error->getMessage();
            }
        }

        self::assertSame($errors[0], $errors[1]);
        self::assertStringContainsString('"undefined" does not exist in "t" at line 3', $errors[1]);
    }

    public function testPiecesAreEvaluatedInOrder(): void
    {
        $calls = [];
        $twig = self::environment('{{ log(1) }}-{{ log(2) }}-{{ log(3) }}{{ log(4) }}', true);
        $twig->addFunction(new TwigFunction('log', static function (int $i) use (&$calls): int {
            $calls[] = $i;

            return $i;
        }));

        self::assertSame('1-2-34', $twig->render('t'));
        self::assertSame([1, 2, 3, 4], $calls);
    }

    public function testConcurrentRendersThatSuspendInARun(): void
    {
        $dir = new TemplateDir(['run.twig' => "<p>{{ name }}:{{ pause(ms) }}{{ name }}\n{{ pause(ms) }}[{{ name|upper }}]</p>"]);
        $view = new View($dir->path);
        $view->addFunction('pause', static function (int $ms): string {
            sleep($ms / 1000);

            return '.';
        });

        try {
            $outputs = $this->async(static function () use ($view): array {
                // The second waits less: it finishes its run while the first is suspended in its own.
                $first = go(static fn (): string => $view->render('run.twig', ['name' => 'a', 'ms' => 3]));
                $second = go(static fn (): string => $view->render('run.twig', ['name' => 'b', 'ms' => 1]));

                return [$first->join(), $second->join()];
            });
        } finally {
            TemplateDir::remove($dir->path);
        }

        self::assertSame(["<p>a:.a\n.[A]</p>", "<p>b:.b\n.[B]</p>"], $outputs);
    }

    /** @return array<string, mixed> */
    public static function data(): array
    {
        return [
            'site' => 'Petrel & co',
            'name' => '<Ada>',
            'n' => 3,
            'html' => '<b class="x">\'quoted\' & "double"</b>',
            'markup' => new Markup('<em>safe</em>', 'UTF-8'),
            'stringable' => new class () {
                public function __toString(): string
                {
                    return '<stringable & co>';
                }
            },
            'throwing' => new class () {
                public function __toString(): string
                {
                    throw new \RuntimeException('no string today');
                }
            },
            'object' => new \stdClass(),
            'nothing' => null,
            'empty' => '',
        ];
    }

    private static function environment(string $template, bool $merged, bool $debug = false): Environment
    {
        $twig = ArrayTwig::create(self::LIBRARY + ['t' => $template], $debug, $merged ? new class () extends AbstractExtension {
            public function getNodeVisitors(): array
            {
                return [new ConcatenatingOutputVisitor()];
            }
        } : null);
        $twig->addFilter(new TwigFilter('explode', static function (): string {
            throw new \LengthException('exploded');
        }));

        return $twig;
    }

    private static function compiled(string $template, bool $merged): string
    {
        return ArrayTwig::compiled(self::environment($template, $merged), 't');
    }
}
