<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\Internal\ReloadingFilesystemLoader;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Twig\Error\LoaderError;

/**
 * Templates are compiled once per process and kept in memory; a cache dir adds compiled
 * PHP on disk for processes that live for one request (classic mode).
 */
#[CoversClass(View::class)]
#[CoversClass(ReloadingFilesystemLoader::class)]
final class ViewCompilationTest extends TestCase
{
    private const SOURCES = [
        'base.twig' => '<main>{% block body %}{% endblock %}</main>',
        'child.twig' => '{% extends "base.twig" %}{% block body %}{{ name }}:{% include "part.twig" %}{% endblock %}',
        'part.twig' => '[{{ name|upper }}]',
    ];

    private TemplateDir $dir;

    /** @var list<string> */
    private array $cleanup = [];

    protected function setUp(): void
    {
        $this->dir = new TemplateDir(self::SOURCES);
        $this->cleanup = [$this->dir->path];
    }

    protected function tearDown(): void
    {
        foreach ($this->cleanup as $dir) {
            TemplateDir::remove($dir);
        }
    }

    public function testEachTemplateIsCompiledOnceAndReusedFromMemory(): void
    {
        $view = new View($this->dir->path);
        $loader = $this->countLoads($view);

        $outputs = [];
        foreach (['a', 'b', 'c', 'd'] as $name) {
            $outputs[] = $view->render('child.twig', ['name' => $name]);
        }

        self::assertSame(['<main>a:[A]</main>', '<main>b:[B]</main>', '<main>c:[C]</main>', '<main>d:[D]</main>'], $outputs);
        self::assertSame(['child.twig' => 1, 'base.twig' => 1, 'part.twig' => 1], $loader->sourceReads);
    }

    public function testTheCompiledClassesOutliveTheView(): void
    {
        // Worker boot builds one View; a second one in the same process (or a rebuilt App)
        // finds the classes already loaded and compiles nothing.
        (new View($this->dir->path))->render('child.twig', ['name' => 'x']);

        $again = new View($this->dir->path);
        $loader = $this->countLoads($again);

        self::assertSame('<main>y:[Y]</main>', $again->render('child.twig', ['name' => 'y']));
        self::assertSame(0, $loader->total());
    }

    public function testWithoutACacheDirNothingIsWrittenAndChangesWaitForARestart(): void
    {
        $view = new View($this->dir->path);
        self::assertSame('<main>a:[A]</main>', $view->render('child.twig', ['name' => 'a']));

        $this->dir->write('part.twig', '(changed {{ name }})');

        self::assertSame('<main>b:[B]</main>', $view->render('child.twig', ['name' => 'b']));
        self::assertSame(['base.twig', 'child.twig', 'part.twig'], $this->listDir($this->dir->path), 'no compiled files next to the templates');
    }

    public function testDebugModeRecompilesAChangedTemplateOnItsNextRender(): void
    {
        $view = new View($this->dir->path, debug: true);
        $loader = $this->countLoads($view);
        self::assertSame('<main>a:[A]</main>', $view->render('child.twig', ['name' => 'a']));
        self::assertSame('<main>b:[B]</main>', $view->render('child.twig', ['name' => 'b']));
        self::assertSame(3, $loader->total(), 'unchanged templates are not recompiled in debug mode either');

        $this->dir->write('part.twig', '(changed {{ name }})');

        self::assertSame('<main>c:(changed c)</main>', $view->render('child.twig', ['name' => 'c']));
        self::assertSame(['child.twig' => 1, 'base.twig' => 1, 'part.twig' => 2], $loader->sourceReads);
    }

    /**
     * FilesystemLoader remembered where each name was found, and where it was not: a
     * template created after a failed render stayed missing until a restart, a deleted one
     * rendered as empty, an override added to the first directory went unseen.
     */
    public function testDebugModeLooksForTheFileAgainOnEveryRender(): void
    {
        $themes = new TemplateDir();
        $this->cleanup[] = $themes->path;
        $view = new View([$themes->path, $this->dir->path], debug: true);
        try {
            $view->render('new.twig');
            self::fail('Expected a LoaderError');
        } catch (LoaderError) {
        }

        $this->dir->write('new.twig', 'new');
        self::assertSame('new', $view->render('new.twig'), 'a template created after a failed render');

        $themes->write('part.twig', '(theme {{ name }})');
        self::assertSame('<main>a:(theme a)</main>', $view->render('child.twig', ['name' => 'a']), 'an override in the first directory');

        \unlink($themes->path . '/part.twig');
        \unlink($this->dir->path . '/part.twig');
        $this->expectException(LoaderError::class);
        $this->expectExceptionMessage('Unable to find template "part.twig"');
        $view->render('child.twig', ['name' => 'b']);
    }

    public function testACacheDirHoldsCompiledPhpThatAFreshProcessLoadsWithoutCompiling(): void
    {
        $cache = \sys_get_temp_dir() . '/petrel-view-cache-' . \bin2hex(\random_bytes(8));
        $this->cleanup[] = $cache;
        $this->age($this->dir->path, 100); // written before the deploy, not in the second compiled

        $first = $this->renderInFreshProcess($cache);
        self::assertSame("3\n<main>classic:[CLASSIC]</main>", $first, 'the first process compiles the three templates');
        $compiled = \glob($cache . '/*/*.php') ?: [];
        self::assertCount(3, $compiled);

        $second = $this->renderInFreshProcess($cache);
        self::assertSame("0\n<main>classic:[CLASSIC]</main>", $second, 'a later process loads them from the cache dir');
    }

    /** Without a look at the template's time, classic mode served the old one until the cache dir was cleared. */
    public function testACacheDirTemplateChangedSinceItWasCompiledIsCompiledAgain(): void
    {
        $cache = \sys_get_temp_dir() . '/petrel-view-cache-' . \bin2hex(\random_bytes(8));
        $this->cleanup[] = $cache;
        $this->age($this->dir->path, 100);
        self::assertSame("3\n<main>classic:[CLASSIC]</main>", $this->renderInFreshProcess($cache));

        // Newer than its compiled file whatever second this is. (Not by ageing the cache:
        // Twig also compares it with the extensions' class files, which a fresh clone has
        // just written — everything was compiled again in CI.)
        $this->dir->write('part.twig', '(deployed {{ name }})');
        \touch($this->dir->path . '/part.twig', \time() + 5);
        self::assertSame("1\n<main>classic:(deployed classic)</main>", $this->renderInFreshProcess($cache), 'the changed template only');

        $this->age($this->dir->path . '/part.twig', 10); // older than its new compiled file
        self::assertSame("0\n<main>classic:(deployed classic)</main>", $this->renderInFreshProcess($cache), 'then from the cache dir again');
    }

    /** Sets the modification time of $path (a file, or every file under a directory) to $seconds ago. */
    private function age(string $path, int $seconds): void
    {
        $files = \is_dir($path)
            ? new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($path, \FilesystemIterator::SKIP_DOTS))
            : [new \SplFileInfo($path)];
        foreach ($files as $file) {
            \assert($file instanceof \SplFileInfo);
            \touch($file->getPathname(), \time() - $seconds);
        }
    }

    private function countLoads(View $view): CountingLoader
    {
        $loader = new CountingLoader($view->environment()->getLoader());
        $view->environment()->setLoader($loader);

        return $loader;
    }

    /** @return list<string> */
    private function listDir(string $dir): array
    {
        $names = \array_values(\array_diff(\scandir($dir) ?: [], ['.', '..']));
        \sort($names);

        return $names;
    }

    private function renderInFreshProcess(string $cache): string
    {
        $command = [\PHP_BINARY, __DIR__ . '/fixtures/render-with-cache.php', $this->dir->path, $cache, 'child.twig'];
        $process = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $out = (string) \stream_get_contents($pipes[1]);
        $err = (string) \stream_get_contents($pipes[2]);
        \fclose($pipes[1]);
        \fclose($pipes[2]);
        self::assertSame(0, \proc_close($process), $err);

        return $out;
    }
}
