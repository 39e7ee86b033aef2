<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\Internal\ShortcutEscapeExpression;
use Petrel\Web\View\Internal\ShortcutEscaperExtension;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Twig\Environment;
use Twig\Loader\ArrayLoader;
use Twig\Markup;
use Twig\Runtime\EscaperRuntime;

#[CoversClass(ShortcutEscaperExtension::class)]
#[CoversClass(ShortcutEscapeExpression::class)]
final class ShortcutEscaperExtensionTest extends TestCase
{
    /** @return iterable<string, array{mixed, string, string|null}> value, strategy, charset */
    public static function values(): iterable
    {
        $stringable = new class () {
            public function __toString(): string
            {
                return '<b>';
            }
        };
        foreach (['html', 'html_attr', 'js', 'css', 'url'] as $strategy) {
            yield "plain ASCII, {$strategy}" => ['Ada Lovelace /users/new', $strategy, null];
            yield "specials, {$strategy}" => ['<a href="x">Tom & Jerry\'s</a>', $strategy, null];
            yield "UTF-8, {$strategy}" => ['Karen Spärck Jones · ok', $strategy, null];
            yield "int, {$strategy}" => [42, $strategy, null];
        }
        yield 'empty' => ['', 'html', null];
        yield 'controls and NUL' => ["a\0b\tc\n", 'html', null];
        yield 'invalid UTF-8 (ENT_SUBSTITUTE)' => ["bad \xC3\x28 byte", 'html', null];
        yield 'lone high byte' => ["\xFF", 'html', null];
        yield 'float' => [1.5, 'html', null];
        yield 'bool' => [true, 'html', null];
        yield 'null' => [null, 'html', null];
        yield 'Markup' => [new Markup('<i>safe</i>', 'UTF-8'), 'html', null];
        yield 'Stringable' => [$stringable, 'html', null];
        yield 'explicit charset' => ['<plain> text', 'html', 'ISO-8859-1'];
        yield 'explicit charset, plain' => ['plain text', 'html', 'ISO-8859-1'];
    }

    #[DataProvider('values')]
    public function testSameResultAsTwigsEscaper(mixed $value, string $strategy, ?string $charset): void
    {
        $twig = new Environment(new ArrayLoader());
        $extension = new ShortcutEscaperExtension($twig);
        $runtime = $twig->getRuntime(EscaperRuntime::class);

        foreach ([true, false] as $autoescape) {
            self::assertSame(
                $runtime->escape($value, $strategy, $charset, $autoescape),
                $extension->escape($value, $strategy, $charset, $autoescape),
            );
        }
    }

    public function testRememberedPlainStringsDoNotChangeResults(): void
    {
        $twig = new Environment(new ArrayLoader());
        $extension = new ShortcutEscaperExtension($twig);
        $runtime = $twig->getRuntime(EscaperRuntime::class);
        $long = \str_repeat('plain ', 20);
        // Twice each (the second from memory, if remembered), past the bound on remembered strings.
        $values = ['Ada', '<b>', 'Tom & Jerry', 'Zoë', '12', $long, "{$long}<", ...\array_map(static fn (int $i): string => "user {$i}", \range(1, 1200))];
        foreach ([...$values, ...$values, '<b>', 'Ada', "{$long}<"] as $value) {
            self::assertSame($runtime->escape($value, 'html'), $extension->escape($value), $value);
            self::assertSame($runtime->escape($value, 'js'), $extension->escape($value, 'js'), "{$value} (js: never the shortcut)");
        }
    }

    public function testViewTemplatesEscapeThroughTheShortcut(): void
    {
        $twig = (new View(__DIR__ . '/templates'))->environment();

        foreach (['escape', 'e'] as $name) {
            $callable = $twig->getFilter($name)?->getCallable();
            self::assertIsArray($callable);
            self::assertInstanceOf(ShortcutEscaperExtension::class, $callable[0], "the {$name} filter");
        }
    }

    public function testCompiledTemplatesLookUpRememberedStringsBeforeCallingAndPrintTheSame(): void
    {
        $template = '{% for v in values %}{{ v }}|{{ v|e }}|{{ v|e("html") }}|{{ v|escape("html", null) }};{% endfor %}'
            . '{{ values[0]|e("js") }}|{{ values[0]|e("html", "UTF-8") }}|{{ values[0]|e(strategy: "html") }}';
        $shortcut = new Environment(new ArrayLoader(['t' => $template]), ['autoescape' => 'html', 'use_yield' => true]);
        $shortcut->addExtension(new ShortcutEscaperExtension($shortcut));
        $twig = new Environment(new ArrayLoader(['t' => $template]), ['autoescape' => 'html', 'use_yield' => true]);
        $stringable = new class () {
            public function __toString(): string
            {
                return '<b>';
            }
        };
        // Twice each: the second time a plain string is found remembered.
        $values = ['Ada', '<b>', 'Tom & Jerry', 'Zoë', '', 7, 1.5, null, true, new Markup('<i>m</i>', 'UTF-8'), $stringable];
        $values = [...$values, ...$values];

        self::assertSame($twig->render('t', ['values' => $values]), $shortcut->render('t', ['values' => $values]));
        $compiled = $shortcut->compileSource($shortcut->getLoader()->getSourceContext('t'));
        // {{ v }}, |e, |e("html"), |e("html", null), and the autoescaping Twig adds around
        // |e("js") (safe for JS, not HTML); not |e("js") itself, a charset, a named strategy.
        self::assertSame(5, \substr_count($compiled, '->plain[$'), $compiled);
        // And a value that is neither a string nor an object (7, 1.5, null, true) is printed without the call.
        self::assertSame(5, \substr_count($compiled, ' : !\is_object($'), $compiled);
    }

    public function testAutoescapingAndExplicitFiltersKeepTwigsRules(): void
    {
        $twig = new Environment(new ArrayLoader([
            't' => '{{ v }}|{{ v|e }}|{{ v|e("js") }}|{{ v|raw }}|{% autoescape "js" %}{{ v }}{% endautoescape %}|{{ m }}',
        ]), ['autoescape' => 'html', 'use_yield' => true]);
        $twig->addExtension(new ShortcutEscaperExtension($twig));

        self::assertSame(
            '&lt;b&gt;&amp;|&lt;b&gt;&amp;|\u003Cb\u003E\u0026|<b>&|\u003Cb\u003E\u0026|<i>m</i>',
            $twig->render('t', ['v' => '<b>&', 'm' => new Markup('<i>m</i>', 'UTF-8')]),
        );
    }
}
