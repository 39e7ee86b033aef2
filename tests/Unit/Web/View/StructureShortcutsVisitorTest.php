<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\View\Internal\DirectBlockNode;
use Petrel\Web\View\Internal\DirectIncludeNode;
use Petrel\Web\View\Internal\DirectParentNode;
use Petrel\Web\View\Internal\RenderFailure;
use Petrel\Web\View\Internal\StructureShortcutsVisitor;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use Twig\Environment;
use Twig\Template;
use Twig\Loader\ArrayLoader;
use Twig\Error\Error;
use Twig\Extension\AbstractExtension;
use Twig\Extension\ProfilerExtension;
use Twig\Extension\SandboxExtension;
use Twig\Profiler\Profile;
use Twig\Sandbox\SecurityPolicy;

use function Petrel\go;
use function Petrel\sleep;

/**
 * Blocks displayed and templates included by direct calls render the same bytes as through
 * Twig's yieldBlock() and yield(), and fail with the same errors, reported against the same
 * template and line.
 */
#[CoversClass(StructureShortcutsVisitor::class)]
#[CoversClass(DirectBlockNode::class)]
#[CoversClass(DirectIncludeNode::class)]
#[CoversClass(DirectParentNode::class)]
#[CoversClass(RenderFailure::class)]
#[CoversClass(View::class)]
final class StructureShortcutsVisitorTest extends AsyncTestCase
{
    /** Templates every case can include, extend, use or embed. */
    public const LIBRARY = [
        'layout' => "<title>{% block title %}{{ site }}{% endblock %}</title>\n<main>{% block body %}{% endblock %}</main>\n"
            . "{% include 'nav' %}<footer>{% block footer %}by {{ site }}{% endblock %}</footer>\n",
        'nav' => "<nav>{{ name }} {{ site }}{% block navextra %}+{% endblock %}</nav>\n",
        'section' => "{% extends 'layout' %}{% block body %}<section>{% block inner %}inner {{ n }}{% endblock %}</section>{% endblock %}",
        'part' => "{% set leaked = 'no' %}<aside>{{ name }} ({{ n }}) {{ leaked }} {{ extra ?? '-' }} {{ site ?? 'no site' }} {{ global }}</aside>\n",
        'blocks' => "{% block a %}A{{ name }}{% endblock %}{% block b %}B{% endblock %}",
        'failing' => "<p>\n{{ name }}\n{{ boom() }}</p>",
        'failing-block' => "{% extends 'layout' %}{% block body %}\n\nx {{ boom() }}{% endblock %}",
        'failing-layout' => "<main>{% block body %}{% endblock %}</main>\n{% block broken %}\n{{ boom() }}{% endblock %}",
        'failing-top' => "<p>{% block body %}{% endblock %}\n\n{{ boom() }}</p>",
    ];

    /** @return iterable<string, array{string}> */
    public static function templates(): iterable
    {
        yield 'extends and blocks' => ["{% extends 'layout' %}{% block title %}T {{ name }} · {{ parent() }}{% endblock %}{% block body %}<p>{{ name }}</p>{{ block('title') }}{% endblock %}"];
        yield 'extends, a name from a variable' => ["{% extends which_layout %}{% block body %}[{{ parent() }}]{% endblock %}"];
        yield 'extends, with a set and an import before' => ["{% extends 'layout' %}{% set name = 'set' %}{% import _self as me %}{% macro m() %}M{% endmacro %}{% block body %}{{ name }}{{ me.m() }}{% endblock %}"];
        yield 'three levels' => ["{% extends 'section' %}{% block inner %}[{{ parent() }}]{% endblock %}{% block footer %}F{{ parent() }}{% endblock %}"];
        yield 'blocks in blocks' => ["{% block outer %}<o>{% block middle %}<m>{% block inner %}{{ name }}{% endblock %}</m>{% endblock %}</o>{% endblock %}"];
        yield 'a block in an if and a for' => ["{% if n %}{% block x %}X{{ n }}{% endblock %}{% endif %}{% for i in 1..2 %}{% block y %}Y{{ i ?? '' }}{% endblock %}{% endfor %}"];
        yield 'set in a block does not leak' => ["{% block x %}{% set name = 'changed' %}{{ name }}{% endblock %}|{{ name }}"];
        yield 'include' => ["<body>{{ name }}{% include 'part' %}{{ n }}{{ include('part') }}{{ leaked ?? 'not leaked' }}</body>"];
        yield 'include with' => ["{% include 'part' with {extra: 'E', n: 7} %}{{ n }}"];
        yield 'include only' => ["{% include 'part' with {name: 'only', n: 1} only %}{{ name }}"];
        yield 'include ignore missing' => ["a{% include 'missing' ignore missing %}b{% include 'part' ignore missing %}c"];
        yield 'include of the first found' => ["{% include ['missing', 'part'] %}"];
        yield 'include by variable' => ["{% include which %}{% include which ~ '' with {extra: 1} %}"];
        yield 'include in a loop' => ["{% for name in ['a', 'b'] %}{% include 'part' %}{{ loop.index }}{% endfor %}"];
        yield 'include of a layout child' => ["{% include 'section' %}"];
        yield 'embed' => ["x{% embed 'layout' %}{% block body %}E{{ name }}{% include 'part' %}{% endblock %}{% endembed %}y"];
        yield 'use' => ["{% use 'blocks' %}[{{ block('a') }}|{% block b %}b{{ parent() }}{% endblock %}]"];
        yield 'use in a child' => ["{% extends 'layout' %}{% use 'blocks' %}{% block body %}{{ block('a') }}{% endblock %}"];
        // The layout displays `body`, whose method is the used template's block_a, not a block_body.
        yield 'use with a rename, displayed by the layout' => ["{% extends 'layout' %}{% use 'blocks' with a as body, b as footer %}"];
        yield 'with' => ["{% with {name: 'other'} %}{% block w %}{{ name }}{% endblock %}{% endwith %}{{ name }}"];
        // The globals (site, global) where the included or parent template runs with the
        // including code's context, not one with the globals added again.
        yield 'include in a with only' => ["{% with {name: 'w', n: 1} only %}{% include 'part' %}{% endwith %}"];
        yield 'include in a macro' => ["{% macro m(name, n) %}{% include 'part' %}{% endmacro %}{% import _self as me %}{{ me.m('in macro', 2) }}"];
        yield 'include in a block of a child' => ["{% extends 'layout' %}{% block body %}{% for i in 1..2 %}{% include 'part' %}{% endfor %}{% endblock %}"];
        yield 'data shadowing a global' => ["{% set site = 'shadowed' %}{% include 'part' %}{% include 'part' with {name: 'o', n: 0} only %}"];
        yield 'extends, the child sets a global\'s name' => ["{% extends 'layout' %}{% set site = 'child' %}{% block body %}{{ site }}{% endblock %}"];
    }

    #[DataProvider('templates')]
    public function testSameOutputAsTwig(string $template): void
    {
        foreach ([false, true] as $debug) {
            $expected = self::environment($template, false, $debug)->render('t', self::data());
            self::assertSame($expected, self::environment($template, true, $debug)->render('t', self::data()), $debug ? 'debug' : 'not debug');
        }
    }

    public function testTheSameThroughAViewAsInPlainTwig(): void
    {
        $dir = new TemplateDir(self::LIBRARY + ['page' => "{% extends 'section' %}{% block inner %}{% include 'part' %}{{ parent() }}{% endblock %}"]);
        try {
            $twig = ArrayTwig::create(self::LIBRARY + ['page' => (string) \file_get_contents($dir->path . '/page')]);
            $view = new View($dir->path, globals: ['site' => 'Petrel & co', 'global' => 'G']);
            $twig->addGlobal('site', 'Petrel & co');
            $twig->addGlobal('global', 'G');

            $expected = $twig->render('page', self::data());
            self::assertStringContainsString('<nav>&lt;Ada&gt; Petrel &amp; co+</nav>', $expected);
            self::assertSame($expected, $view->render('page', self::data()));
            self::assertSame($expected, (string) $view->response('page', self::data())->getBody());
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    public function testBlocksAndIncludesAreCompiledAsDirectCalls(): void
    {
        $template = "{% block x %}X{% endblock %}{% include 'part' %}{% include 'part' ignore missing %}";

        $twig = self::compiled($template, false);
        self::assertSame(1, \substr_count($twig, '->yieldBlock('), $twig);
        self::assertSame(2, \substr_count($twig, '->unwrap()->yield('), $twig);

        // The block and the plain include are direct calls (Twig's yieldBlock() kept for a
        // block $blocks lacks); the include that may be missing is left to Twig.
        $direct = self::compiled($template, true);
        self::assertSame(1, \substr_count($direct, '->{$_v0[1]}($context, $blocks)'), $direct);
        // The block's own method by its name, the one in $blocks only for a block used under another name.
        self::assertSame(1, \substr_count($direct, "if (\$_v0[1] === 'block_x') {"), $direct);
        self::assertSame(1, \substr_count($direct, '->block_x($context, $blocks)'), $direct);
        self::assertSame(1, \substr_count($direct, '->doDisplay($context, '), $direct);
        self::assertSame(1, \substr_count($direct, '->unwrap()->yield('), $direct);
        self::assertSame(2, \substr_count($direct, RenderFailure::class . '::rethrow('), $direct);
        // No sandbox, so no security check to run (Twig's calls one that does nothing).
        self::assertStringNotContainsString('ensureSecurityChecked', $direct);
    }

    public function testExtendsWithAConstantNameIsADirectCall(): void
    {
        $template = "{% extends 'layout' %}{% block body %}x{% endblock %}";

        self::assertStringNotContainsString('$this->parent->doDisplay(', self::compiled($template, false));
        self::assertStringContainsString('->unwrap()->yield($context, array_merge($this->blocks, $blocks));', self::compiled($template, false));
        $direct = self::compiled($template, true);
        // Outside debug mode the parent is kept, and so are the blocks merged for the child rendered itself.
        self::assertSame(1, \substr_count($direct, 'yield from $this->parent->doDisplay($context, ($blocks === $this->blocks ? ($this->petrelParentBlocks ??= \array_merge($this->parent->blocks, $this->blocks)) : \array_merge($this->parent->blocks, $this->blocks, $blocks)));'), $direct);
        self::assertStringContainsString(RenderFailure::class . '::rethrow($this->parent, ', $direct);
        $debug = ArrayTwig::compiled(self::environment($template, true, true), 't');
        self::assertSame(1, \substr_count($debug, 'yield from $this->parent->doDisplay($context, \array_merge($this->parent->blocks, $this->blocks, $blocks));'), $debug);

        // A name known only when rendering: Twig's getParent().
        self::assertStringNotContainsString('$this->parent->doDisplay(', self::compiled('{% extends which_layout %}', true));
    }

    public function testTemplatesNamedByAConstantAreLoadedOnceOutsideDebugMode(): void
    {
        $template = "{% extends 'layout' %}{% block body %}{% include 'part' %}{% include which %}{% endblock %}";

        $direct = ArrayTwig::compiled(self::environment($template, true), 't');
        self::assertStringContainsString('private array $petrelLoaded = [];', $direct);
        self::assertStringContainsString('$this->parent = $this->petrelLoaded["layout"] ??= $this->load("layout", 1);', $direct);
        self::assertStringContainsString(' = $this->petrelLoaded["part"] ??= $this->load("part", 1);', $direct);
        self::assertSame(2, \substr_count($direct, '$this->petrelLoaded['), 'a name known only when rendering is loaded each time');

        // In debug mode a changed template becomes a new class, which load() finds.
        $debug = ArrayTwig::compiled(self::environment($template, true, debug: true), 't');
        self::assertStringNotContainsString('petrelLoaded', $debug);

        // After the first render only `which` is asked for again (Twig keeps 't' itself):
        // the layout, the part and the layout's nav are kept (Twig would ask for them too).
        $twig = new class (new ArrayLoader(self::LIBRARY + ['t' => $template]), ['use_yield' => true, 'cache' => false, 'autoescape' => 'html']) extends Environment {
            /** @var list<string> */
            public array $loads = [];

            public function loadTemplate(string $cls, string $name, ?int $index = null): Template
            {
                $this->loads[] = $name;

                return parent::loadTemplate($cls, $name, $index);
            }
        };
        $twig->addExtension(new class () extends AbstractExtension {
            public function getNodeVisitors(): array
            {
                return [new StructureShortcutsVisitor()];
            }
        });
        $twig->addGlobal('global', 'G');
        $plain = self::environment($template, false);
        self::assertSame($plain->render('t', self::data()), $twig->render('t', self::data()));
        self::assertSame(['t', 'layout', 'part', 'part', 'nav'], $twig->loads);
        $twig->loads = [];
        self::assertSame($plain->render('t', self::data()), $twig->render('t', self::data()));
        self::assertSame(['part'], $twig->loads);
    }

    public function testExtendsIsLeftToTwigWhenCodeFollowsItsCallToTheParent(): void
    {
        // The profiler ends its profile after the parent's display (ModuleNode's display_end).
        $template = "{% extends 'layout' %}{% block body %}x{% endblock %}";
        $twig = self::environment($template, true);
        $profile = new Profile();
        $twig->addExtension(new ProfilerExtension($profile));

        self::assertStringNotContainsString('$this->parent->doDisplay(', ArrayTwig::compiled($twig, 't'));
        self::assertSame(self::environment($template, false)->render('t', self::data()), $twig->render('t', self::data()));
        self::assertSame('t', $profile->getProfiles()[0]->getTemplate());
        self::assertGreaterThan(0, $profile->getProfiles()[0]->getDuration());
    }

    public function testKeptParentBlocksServeOnlyTheChildRenderedItself(): void
    {
        // 'section' rendered first keeps its merged blocks; 'page' extends it, so section's
        // display then gets page's blocks, which the kept ones must not replace.
        $library = self::LIBRARY + ['page' => "{% extends 'section' %}{% block inner %}page {{ n }}{% endblock %}{% block title %}P{% endblock %}"];
        $dir = new TemplateDir($library);
        try {
            $twig = ArrayTwig::create($library);
            $twig->addGlobal('global', 'G');
            $view = new View($dir->path, globals: ['global' => 'G']);
            foreach (['section', 'page', 'section', 'page', 'layout', 'section'] as $name) {
                self::assertSame($twig->render($name, self::data()), $view->render($name, self::data()), $name);
            }
            self::assertStringContainsString('<title>P</title>', $view->render('page', self::data()));
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    public function testNotUnderTheSandbox(): void
    {
        $twig = self::environment("{% block x %}X{% endblock %}{% include 'part' %}", true);
        $twig->addExtension(new SandboxExtension(new SecurityPolicy(), false));

        $compiled = ArrayTwig::compiled($twig, 't');
        self::assertStringNotContainsString(RenderFailure::class, $compiled);
        self::assertStringContainsString('->yieldBlock(', $compiled);

        // And the included template's check runs: its `set` is not allowed.
        $sandboxed = self::environment("{% include 'part' %}", true);
        $sandboxed->addExtension(new SandboxExtension(new SecurityPolicy(['include']), true));
        try {
            $sandboxed->render('t', self::data());
            self::fail('Expected the sandbox to refuse the include');
        } catch (\Twig\Sandbox\SecurityNotAllowedTagError $e) {
            self::assertSame('set', $e->getTagName());
        }
    }

    /** @return iterable<string, array{string, string, int}> a template that throws, the template and line reported */
    public static function failures(): iterable
    {
        yield 'in an included template' => ["a\n{% include 'failing' %}", 'failing', 3];
        yield 'in an include in a layout, from a child' => ["{% extends 'layout' %}{% block body %}{% include 'failing' %}{% endblock %}", 'failing', 3];
        yield "in a child's block" => ["{% extends 'layout' %}{% block title %}\n{{ boom() }}{% endblock %}", 't', 2];
        yield "in a layout's block" => ["{% extends 'failing-layout' %}{% block body %}ok{% endblock %}", 'failing-layout', 3];
        yield "in an included child's block" => ["x\n{% include 'failing-block' %}", 'failing-block', 3];
        yield 'in a block of its own' => ["{% block x %}\n\n\n{{ boom() }}{% endblock %}", 't', 4];
        yield "in a layout, outside its blocks" => ["{% extends 'failing-top' %}{% block body %}ok{% endblock %}", 'failing-top', 3];
        yield 'a missing layout' => ["\n{% extends 'missing' %}{% block body %}ok{% endblock %}", 't', 2];
        yield 'a missing include' => ["a\n\n{% include 'missing' %}", 't', 3];
        yield 'a missing include in a block' => ["{% extends 'layout' %}{% block body %}\n{% include 'missing' %}{% endblock %}", 't', 2];
        yield 'a variable not defined, strict' => ["{% extends 'layout' %}{% block body %}\n{{ undefined }}{% endblock %}", 't', 2];
    }

    #[DataProvider('failures')]
    public function testAnErrorIsTwigsForTheSameTemplateAndLine(string $template, string $name, int $line): void
    {
        foreach ([false, true] as $debug) {
            $errors = [];
            foreach ([false, true] as $direct) {
                try {
                    self::environment($template, $direct, $debug)->render('t', self::data() + ($debug ? [] : ['undefined' => null]));
                    $errors[] = null;
                } catch (Error $error) {
                    $errors[] = [$error::class, $error->getMessage(), $error->getSourceContext()?->getName(), $error->getTemplateLine(), $error->getPrevious()?->getMessage()];
                }
            }

            self::assertSame($errors[0], $errors[1], $debug ? 'debug' : 'not debug');
            if ($errors[1] !== null) {
                self::assertSame([$name, $line], [$errors[1][2], $errors[1][3]], $errors[1][1]);
            } else {
                self::assertFalse($debug, 'only the undefined variable, outside strict mode, renders');
            }
        }
    }

    public function testConcurrentRendersThatSuspendInBlocksAndIncludes(): void
    {
        $dir = new TemplateDir(['layout' => self::LIBRARY['layout'], 'nav' => self::LIBRARY['nav'],
            'page' => "{% extends 'layout' %}{% block body %}{{ pause(ms) }}{{ name }}{% include 'slow' %}{% endblock %}",
            'slow' => '[{{ pause(ms) }}{{ name }}]',
        ]);
        $view = new View($dir->path, globals: ['site' => 's', 'global' => 'G']);
        $view->addFunction('pause', static function (int $ms): string {
            sleep($ms / 1000);

            return '.';
        });

        try {
            $outputs = $this->async(static function () use ($view): array {
                $first = go(static fn (): string => $view->render('page', ['name' => 'a', 'ms' => 3]));
                $second = go(static fn (): string => $view->render('page', ['name' => 'b', 'ms' => 1]));

                return [$first->join(), $second->join()];
            });
        } finally {
            TemplateDir::remove($dir->path);
        }

        $page = static fn (string $name): string => "<title>s</title>\n<main>.{$name}[.{$name}]</main>\n<nav>{$name} s+</nav>\n<footer>by s</footer>\n";
        self::assertSame([$page('a'), $page('b')], $outputs);
    }

    /** @return array<string, mixed> */
    public static function data(): array
    {
        return ['site' => 'Petrel & co', 'name' => '<Ada>', 'n' => 3, 'which' => 'part', 'which_layout' => 'section'];
    }

    private static function environment(string $template, bool $direct, bool $debug = false): Environment
    {
        $twig = ArrayTwig::create(self::LIBRARY + ['t' => $template], $debug, $direct ? new class () extends AbstractExtension {
            public function getNodeVisitors(): array
            {
                return [new StructureShortcutsVisitor()];
            }
        } : null);
        $twig->addGlobal('global', 'G');

        return $twig;
    }

    private static function compiled(string $template, bool $direct): string
    {
        return ArrayTwig::compiled(self::environment($template, $direct), 't');
    }
}
