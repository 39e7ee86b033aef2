<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\View\Internal\ClassCachingEnvironment;
use Petrel\Web\View\Internal\CompiledTokens;
use Petrel\Web\View\Internal\StringMethods;
use Petrel\Web\View\Internal\StringRenderable;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use Twig\Error\Error;
use Twig\Extension\SandboxExtension;
use Twig\Sandbox\SecurityNotAllowedTagError;
use Twig\Sandbox\SecurityPolicy;
use Twig\TwigFilter;

/**
 * A View renders through the string forms of templates' displays and blocks: the same
 * bytes as Twig's generators, the same errors at the same template lines.
 */
#[CoversClass(StringMethods::class)]
#[CoversClass(CompiledTokens::class)]
#[CoversClass(ClassCachingEnvironment::class)]
#[CoversClass(View::class)]
final class StringMethodsTest extends AsyncTestCase
{
    /** @return iterable<string, array{array<string, string>, string, array<string, mixed>}> library, template, data */
    public static function templates(): iterable
    {
        foreach (StructureShortcutsVisitorTest::templates() as $name => [$template]) {
            yield "structure: {$name}" => [StructureShortcutsVisitorTest::LIBRARY, $template, StructureShortcutsVisitorTest::data()];
        }
        foreach (ConcatenatingOutputVisitorTest::templates() as $name => [$template]) {
            yield "output: {$name}" => [ConcatenatingOutputVisitorTest::LIBRARY, $template, ConcatenatingOutputVisitorTest::data()];
        }
        $library = StructureShortcutsVisitorTest::LIBRARY;
        $data = StructureShortcutsVisitorTest::data();
        yield 'a capture in a block, a macro' => [$library, "{% block b %}{% set c %}<{{ name }}>{% endset %}[{{ c }}]{% endblock %}"
            . "{% macro m(x) %}({% for i in 1..x %}{{ i }}{% endfor %}){% endmacro %}{% import _self as me %}{{ me.m(n) }}", $data];
        yield 'for with else and loop, in a child block' => [$library, "{% extends 'layout' %}{% block body %}{% for i in items %}{{ loop.index }}:{{ i }}{% if loop.last %}.{% endif %}"
            . "{% else %}none{% endfor %}{% for k, v in {a: 1, b: 2} %}{{ k }}={{ v }};{% endfor %}{% endblock %}", $data + ['items' => ['x', 'y']]];
        yield 'a block in an embed in a block' => [$library, "{% block outer %}<{% embed 'layout' %}{% block body %}E{{ parent() }}{{ n }}{% endblock %}{% endembed %}>{% endblock %}", $data];
        yield 'a flush and a deprecated tag' => [$library, "a{% flush %}b{% deprecated 'old' %}{{ name }}", $data];
        yield 'arrow functions in filters' => [$library, "{{ [1, 2, 3]|map(v => v * n)|filter(v => v > 3)|join(',') }}{{ [3, 1]|sort((a, b) => a <=> b)|join }}", $data];
    }

    /**
     * @param array<string, string> $library
     * @param array<string, mixed> $data
     */
    #[DataProvider('templates')]
    public function testSameOutputAsTwig(array $library, string $template, array $data): void
    {
        foreach ([false, true] as $debug) {
            $twig = ArrayTwig::create($library + ['t' => $template], $debug);
            $twig->addGlobal('global', 'G');
            $twig->addFilter(new TwigFilter('explode', static fn (): string => throw new \LengthException('exploded')));
            $expected = @$twig->render('t', $data); // @: the deprecated tag

            [$view, $dir] = self::view($library + ['t' => $template], $debug);
            try {
                self::assertSame($expected, @$view->render('t', $data), $debug ? 'debug' : 'not debug');
                self::assertSame($expected, (string) @$view->response('t', $data)->getBody());

                // Rendered by the string methods proper, not by their fallback joining the generator's pieces.
                $compiled = ArrayTwig::compiled($view->environment(), 't');
                self::assertStringContainsString('public function petrelDisplay(', $compiled);
                self::assertDoesNotMatchRegularExpression('/foreach \(\$this->(doDisplay|block_\w+)\(/', $compiled);
            } finally {
                TemplateDir::remove($dir);
            }
        }
    }

    /** @return iterable<string, array{string, string, int}> a template that throws, the template and line reported */
    public static function failures(): iterable
    {
        yield from StructureShortcutsVisitorTest::failures();
        // The string methods of an embedded template's class and of the class before it.
        yield "in an embed's block" => ["x\n{% embed 'layout' %}{% block body %}\n\n{{ boom() }}{% endblock %}{% endembed %}", 't', 4];
        yield "in an embed's block, more lines after it" => ["x\n{% embed 'layout' %}{% block body %}\n{{ boom() }}\n\n{{ n }}\n{{ n }}{% endblock %}"
            . "{% block footer %}\n\n\nF{{ n }}\n{{ n }}{% endblock %}{% endembed %}\n{{ n }}\n{{ n }}", 't', 3];
        yield 'after an embed' => ["{% embed 'layout' %}{% block body %}E{% endblock %}{% endembed %}\n\n{{ boom() }}", 't', 3];
        yield 'in a for in a block' => ["{% block b %}{% for i in 1..3 %}\n{% if i == 2 %}\n\n{{ boom() }}{% endif %}{% endfor %}{% endblock %}", 't', 4];
    }

    #[DataProvider('failures')]
    public function testAnErrorIsTwigsForTheSameTemplateAndLine(string $template, string $name, int $line): void
    {
        $library = StructureShortcutsVisitorTest::LIBRARY + ['t' => $template];
        foreach ([false, true] as $debug) {
            $data = StructureShortcutsVisitorTest::data() + ($debug ? [] : ['undefined' => null]);
            $errors = [];
            $twig = ArrayTwig::create($library, $debug);
            $twig->addGlobal('global', 'G');
            [$view, $dir] = self::view($library, $debug);
            try {
                foreach ([static fn () => $twig->render('t', $data), static fn () => $view->render('t', $data)] as $render) {
                    try {
                        $render();
                        $errors[] = null;
                    } catch (Error $error) {
                        $errors[] = [$error::class, $error->getMessage(), $error->getSourceContext()?->getName(), $error->getTemplateLine(), $error->getPrevious()?->getMessage()];
                    }
                }
            } finally {
                TemplateDir::remove($dir);
            }

            // The messages name the template and line, and the View's path is different.
            foreach ($errors as $i => $error) {
                if ($error !== null && $error[0] === \Twig\Error\LoaderError::class) {
                    $errors[$i][1] = 'not found'; // the loaders' own words, an array's or a directory's
                }
            }
            self::assertSame($errors[0], $errors[1], $debug ? 'debug' : 'not debug');
            if ($errors[1] !== null) {
                self::assertSame([$name, $line], [$errors[1][2], $errors[1][3]], $errors[1][1]);
            }
        }
    }

    public function testUnderTheSandboxAnIncludedTemplateIsStillChecked(): void
    {
        [$view, $dir] = self::view(['t' => "a{% include 'part' %}", 'part' => "{% set x = 1 %}{{ x }}"]);
        $view->environment()->addExtension(new SandboxExtension(new SecurityPolicy(['include']), true));
        try {
            $view->render('t');
            self::fail('Expected the sandbox to refuse the included template\'s set');
        } catch (SecurityNotAllowedTagError $e) {
            self::assertSame('set', $e->getTagName());
        } finally {
            TemplateDir::remove($dir);
        }
    }

    public function testUnderTheSandboxTheRenderedTemplateIsChecked(): void
    {
        [$plain, $plainDir] = self::view(['t' => '{% set x = 1 %}{{ x }}']);
        [$view, $dir] = self::view(['t' => '{% set x = 1 %}{{ x }}']);
        $view->environment()->addExtension(new SandboxExtension(new SecurityPolicy(), true));
        try {
            // Only a class compiled under the sandbox has a check of its own to call.
            self::assertStringNotContainsString('ensureSecurityChecked', ArrayTwig::compiled($plain->environment(), 't'));
            self::assertSame('1', $plain->render('t'));
            self::assertStringContainsString('{ try { $this->ensureSecurityChecked(); return $this->petrelDisplay(', ArrayTwig::compiled($view->environment(), 't'));
            $view->render('t');
            self::fail('Expected the sandbox to refuse the set');
        } catch (SecurityNotAllowedTagError $e) {
            self::assertSame('set', $e->getTagName());
        } finally {
            TemplateDir::remove($dir);
            TemplateDir::remove($plainDir);
        }
    }

    public function testWhatTheRewriteDoesNotCoverFallsBackToTheGenerator(): void
    {
        $class = 'StringMethodsTest_' . \bin2hex(\random_bytes(4));
        $source = <<<PHP
            <?php
            class {$class} extends \\Twig\\Template
            {
                public function getTemplateName(): string { return 'x'; }
                public function getDebugInfo(): array
                {
                    return array (  9 => 1,  8 => 1,);
                }
                public function getSourceContext(): \\Twig\\Source { return new \\Twig\\Source('', 'x'); }
                protected function doDisplay(array \$context, array \$blocks = []): iterable
                {
                    yield 'a';
                    yield from \$this->block_keyed(\$context, \$blocks);
                    yield from \$this->block_valued(\$context, \$blocks);
                    \$closure = function () use (\$context): iterable { yield 'in a closure'; return 1; };
                    yield from \$closure();
                    yield \\stdClass::class . '|' . (fn (\$x) => \$x)('arrow');
                }
                public function block_keyed(array \$context, array \$blocks = []): iterable
                {
                    yield 'k' => 'b';
                    return 2;
                }
                public function block_valued(array \$context, array \$blocks = []): iterable
                {
                    \$sent = yield 'c';
                    yield 'd' . \$sent;
                }
            }
            PHP;
        $compiled = StringMethods::addTo($source);
        // The original lines stay where they were, but for the class's first line and brace and the debug info.
        [$before, $after] = [\explode("\n", $source), \explode("\n", $compiled)];
        foreach ($before as $i => $line) {
            if (!\in_array($i, [1, 2, 6, \count($before) - 1], true)) {
                self::assertSame($line, $after[$i]);
            }
        }
        eval('?>' . $compiled);

        // doDisplay() rewritten: the closure kept as it is, collected as any iterable.
        self::assertStringContainsString("\$__petrelOut .= 'a';", $compiled);
        self::assertStringContainsString("yield 'in a closure'; return 1;", $compiled);
        self::assertStringContainsString('foreach ( $closure() as $__petrelPiece)', $compiled);
        // block_keyed(): a key and a return value, block_valued(): a yield's value, so their generators joined.
        self::assertStringContainsString('public function petrel_block_keyed(array $context, array $blocks = []): string', $compiled);
        self::assertStringContainsString("{ \$__petrelOut = ''; foreach (\$this->block_keyed(\$context, \$blocks) as \$__petrelPiece)", $compiled);
        self::assertStringContainsString("{ \$__petrelOut = ''; foreach (\$this->block_valued(\$context, \$blocks) as \$__petrelPiece)", $compiled);

        $template = new $class(new \Twig\Environment(new \Twig\Loader\ArrayLoader()));
        self::assertInstanceOf(StringRenderable::class, $template);
        $pieces = \implode('', \iterator_to_array($template->yield([]), false));
        self::assertSame($pieces, $template->petrelRender([], []));
        self::assertSame('abcdin a closurestdClass|arrow', $pieces);
    }

    /**
     * A View of $templates, with what ArrayTwig's environments have: a `boom()` that throws,
     * the global `global`, the filter `explode`.
     *
     * @param array<string, string> $templates
     * @return array{View, string} the view and its template directory, to remove
     */
    private static function view(array $templates, bool $debug = false): array
    {
        $dir = new TemplateDir($templates);
        $view = new View($dir->path, debug: $debug, globals: ['global' => 'G']);
        $view->addFunction('boom', static fn (): string => throw new \DomainException('boom'));
        $view->environment()->addFilter(new TwigFilter('explode', static fn (): string => throw new \LengthException('exploded')));

        return [$view, $dir->path];
    }
}
