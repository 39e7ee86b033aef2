<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\View;
use Petrel\Web\View\ViewError;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Twig\Environment;
use Twig\Error\LoaderError;
use Twig\Error\RuntimeError;
use Twig\Extension\AbstractExtension;
use Twig\Extension\GlobalsInterface;
use Twig\Loader\ArrayLoader;

#[CoversClass(View::class)]
final class ViewTest extends TestCase
{
    private const TEMPLATES = __DIR__ . '/templates';

    public function testLayoutBlocksAndIncludes(): void
    {
        $view = new View(self::TEMPLATES, globals: ['app_name' => 'Petrel']);

        $html = $view->render('page.html.twig', [
            'title' => 'Users',
            'users' => [['name' => 'Ada'], ['name' => 'Linus']],
        ]);

        self::assertStringContainsString('<title>Users | Petrel</title>', $html);   // block + parent()
        self::assertStringContainsString('<h1>Users</h1>', $html);
        self::assertStringContainsString('<li class="user">Ada</li>', $html);       // include
        self::assertStringContainsString('<li class="user">Linus</li>', $html);
        self::assertStringContainsString('<footer>Petrel footer</footer>', $html);  // block kept from the layout
        self::assertStringNotContainsString('default content', $html);
    }

    public function testRenderAndResponseGiveTwigsOwnRendering(): void
    {
        $view = new View(self::TEMPLATES, globals: ['app_name' => 'Petrel']);
        $data = ['title' => 'Users & more', 'users' => [['name' => 'Ada'], ['name' => '<Linus>']]];
        $twigs = $view->environment()->load('page.html.twig')->render($data);

        self::assertSame($twigs, $view->render('page.html.twig', $data));
        self::assertSame($twigs, $view->response('page.html.twig', $data)->getBody());
    }

    public function testOutputIsHtmlEscapedByDefaultAndRawOptsOut(): void
    {
        $view = new View(self::TEMPLATES);

        self::assertSame("Hello, &lt;script&gt;alert(1)&lt;/script&gt;!\n", $view->render('greeting.html.twig', ['name' => '<script>alert(1)</script>']));
        $html = $view->render('escape.html.twig', ['value' => '<b>"bold" & \'more\'</b>']);

        self::assertStringContainsString('escaped: &lt;b&gt;&quot;bold&quot; &amp; &#039;more&#039;&lt;/b&gt;', $html);
        // Twig trusts literals written in the template itself: they are output as written.
        self::assertStringContainsString('literal: <script>', $html);
        self::assertStringContainsString('raw: <b>"bold" & \'more\'</b>', $html);
    }

    public function testResponseIsUtf8Html(): void
    {
        $view = new View(self::TEMPLATES);

        $response = $view->response('greeting.html.twig', ['name' => 'Zoë'], 201);

        self::assertSame(201, $response->getStatus());
        self::assertSame('text/html; charset=utf-8', $response->getHeader('Content-Type'));
        self::assertSame("Hello, Zoë!\n", $response->getBody());
    }

    public function testGlobalsAreSeenByEveryRenderAndDataOverridesThem(): void
    {
        $view = new View([self::TEMPLATES], globals: ['name' => 'global']);
        $view->addGlobal('app_name', 'Petrel');

        self::assertSame("Hello, global!\n", $view->render('greeting.html.twig'));
        self::assertSame("Hello, request!\n", $view->render('greeting.html.twig', ['name' => 'request']));
        self::assertSame("Hello, global!\n", $view->render('greeting.html.twig'));
    }

    public function testFunctionsAreEscapedUnlessDeclaredSafeHtml(): void
    {
        $dir = new TemplateDir(['f.twig' => '{{ plain() }}|{{ html() }}|{{ url("post", 7) }}']);
        try {
            $view = new View($dir->path);
            $view->addFunction('plain', static fn (): string => '<i>x</i>');
            $view->addFunction('html', static fn (): string => '<i>x</i>', safeHtml: true);
            $view->addFunction('url', static fn (string $route, int $id): string => "/{$route}/{$id}?a=1&b=2");

            self::assertSame('&lt;i&gt;x&lt;/i&gt;|<i>x</i>|/post/7?a=1&amp;b=2', $view->render('f.twig'));
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    public function testFunctionsAndNewGlobalsMustBeAddedBeforeTheFirstRender(): void
    {
        // A fresh directory, so the render compiles (which initialises Twig's extensions).
        $dir = new TemplateDir(['g.twig' => '{{ app_name }}']);
        try {
            $view = new View($dir->path, globals: ['app_name' => 'a']);
            self::assertSame('a', $view->render('g.twig'));

            $view->addGlobal('app_name', 'b'); // changing an existing one is allowed
            self::assertSame('b', $view->render('g.twig'));
            try {
                $view->addFunction('late', static fn (): string => '');
                self::fail('Expected a ViewError');
            } catch (ViewError $e) {
                self::assertStringContainsString('before the first render', $e->getMessage());
            }
            $this->expectException(ViewError::class);
            $view->addGlobal('new_global', 1);
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    public function testGlobalsChangedThroughTwigAfterTheFirstRenderAreSeenAsTwigSeesThem(): void
    {
        // View reads the Environment's copy of its globals: each way Twig's can change
        // (addGlobal() of an existing one, resetGlobals() re-reading the extensions'), the
        // next render sees what Twig's own render of the same template does.
        $source = '{{ app_name }}|{{ from_extension }}';
        $dir = new TemplateDir(['g.twig' => $source]);
        $extension = new class () extends AbstractExtension implements GlobalsInterface {
            public string $value = 'x1';

            public function getGlobals(): array
            {
                return ['from_extension' => $this->value];
            }
        };
        $twig = new Environment(new ArrayLoader(['g.twig' => $source]));
        try {
            $view = new View($dir->path, globals: ['app_name' => 'a']);
            $both = [$view->environment(), $twig];
            foreach ($both as $environment) {
                $environment->addExtension($extension);
                $environment->addGlobal('app_name', 'a');
            }
            $steps = [
                'the first render' => [static fn () => null, 'a|x1'],
                "the extension's value changed: resolved once, not seen" => [static fn () => $extension->value = 'x2', 'a|x1'],
                'addGlobal() of an existing global' => [static fn () => \array_map(static fn (Environment $e) => $e->addGlobal('app_name', 'b'), $both), 'b|x1'],
                "resetGlobals(): the extension's read again, 'b' (set after the runtime started) forgotten" => [static fn () => \array_map(static fn (Environment $e) => $e->resetGlobals(), $both), 'a|x2'],
            ];
            foreach ($steps as $step => [$change, $expected]) {
                $change();
                self::assertSame([$expected, $expected], [$twig->render('g.twig'), $view->render('g.twig')], $step);
            }
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    public function testMissingTemplateDirectoryIsMisuse(): void
    {
        $this->expectException(ViewError::class);
        $this->expectExceptionMessage('does not exist');
        new View([self::TEMPLATES, __DIR__ . '/no-such-dir']);
    }

    public function testMissingTemplateIsTwigsLoaderError(): void
    {
        $this->expectException(LoaderError::class);
        (new View(self::TEMPLATES))->render('nope.html.twig');
    }

    public function testUndefinedVariablesFailOnlyInDebugMode(): void
    {
        self::assertSame("Hello, !\n", (new View(self::TEMPLATES))->render('greeting.html.twig'));

        $debug = new View(self::TEMPLATES, debug: true);
        self::assertTrue($debug->isDebug());
        self::assertTrue($debug->environment()->isDebug());
        $this->expectException(RuntimeError::class);
        $debug->render('greeting.html.twig');
    }

    public function testEnvironmentIsConfiguredForCoroutinesAndProduction(): void
    {
        $twig = (new View(self::TEMPLATES))->environment();

        self::assertTrue($twig->useYield(), 'templates must not use output buffering (shared by all coroutines)');
        self::assertFalse($twig->isDebug());
        self::assertFalse($twig->isAutoReload());
        self::assertFalse($twig->isStrictVariables());
        self::assertFalse($twig->getCache());
    }
}
