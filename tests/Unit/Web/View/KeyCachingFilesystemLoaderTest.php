<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\Internal\KeyCachingFilesystemLoader;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Twig\Error\LoaderError;

#[CoversClass(KeyCachingFilesystemLoader::class)]
#[CoversClass(View::class)]
final class KeyCachingFilesystemLoaderTest extends TestCase
{
    /** @var list<TemplateDir> */
    private array $dirs = [];

    protected function tearDown(): void
    {
        foreach ($this->dirs as $dir) {
            TemplateDir::remove($dir->path);
        }
    }

    public function testTheKeyIsFoundOnceAndForgottenWhenThePathsChange(): void
    {
        $first = $this->dir(['a.twig' => 'first']);
        $second = $this->dir(['a.twig' => 'second']);
        $loader = new KeyCachingFilesystemLoader([$first->path]);
        $key = $loader->getCacheKey('a.twig');

        \unlink($first->path . '/a.twig');
        self::assertSame($key, $loader->getCacheKey('a.twig'), 'not looked up again');

        $loader->prependPath($second->path);
        self::assertStringContainsString($second->path, $loader->getCacheKey('a.twig'));
        $loader->setPaths([$first->path]);
        $first->write('a.twig', 'first again');
        self::assertSame($key, $loader->getCacheKey('a.twig'));
        $loader->addPath($second->path);
        self::assertSame($key, $loader->getCacheKey('a.twig'), 'the first path still wins');
    }

    public function testAViewRendersTheSameTemplateFromEveryRequest(): void
    {
        $dir = $this->dir(['layout.twig' => '[{% block body %}{% endblock %}]', 'page.twig' => "{% extends 'layout.twig' %}{% block body %}{{ n }}{% endblock %}"]);
        $view = new View($dir->path);

        self::assertSame(['[1]', '[2]', '[3]'], \array_map(static fn (int $n): string => $view->render('page.twig', ['n' => $n]), [1, 2, 3]));
        self::assertSame('[4]', (string) $view->response('page.twig', ['n' => 4])->getBody());
    }

    /** A template named after the URL: every made-up name was remembered for the life of the worker. */
    public function testMissingNamesAreNotRememberedWithoutBound(): void
    {
        $dir = $this->dir(['a.twig' => 'a']);
        $view = new View($dir->path);
        $loader = $view->environment()->getLoader();
        \assert($loader instanceof KeyCachingFilesystemLoader);
        $misses = static fn (): int => \count((fn (): array => $this->errorCache)->call($loader));

        for ($i = 0; $i < 1000; ++$i) {
            try {
                $view->render("pages/missing-{$i}.twig");
                self::fail('Expected a LoaderError');
            } catch (LoaderError $e) {
                self::assertSame("Unable to find template \"pages/missing-{$i}.twig\" (looked into: {$dir->path}).", $e->getMessage());
            }
        }

        self::assertLessThanOrEqual(256, $misses());
        self::assertSame('a', $view->render('a.twig'));
    }

    /** @param array<string, string> $templates */
    private function dir(array $templates): TemplateDir
    {
        return $this->dirs[] = new TemplateDir($templates);
    }
}
