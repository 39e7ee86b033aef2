<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\Internal\ClassCachingEnvironment;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Twig\Environment;
use Twig\Error\RuntimeError;
use Twig\Loader\ArrayLoader;

/** Remembered class names give the template each name stands for, until what Twig hashes changes. */
#[CoversClass(ClassCachingEnvironment::class)]
final class ClassCachingEnvironmentTest extends TestCase
{
    public function testEachNameKeepsItsOwnTemplate(): void
    {
        $twig = self::environment([
            'page.twig' => '<{% include which %}>',
            'x.twig' => 'X{{ n }}',
            'y.twig' => 'Y{{ n }}',
        ]);

        $outputs = [];
        foreach (['x.twig', 'y.twig', 'x.twig', 'y.twig'] as $n => $which) {
            $outputs[] = $twig->render('page.twig', ['which' => $which, 'n' => $n]);
        }

        self::assertSame(['<X0>', '<Y1>', '<X2>', '<Y3>'], $outputs);
    }

    public function testTheSameClassesAsTwigWorksOut(): void
    {
        $sources = ['a.twig' => 'a', 'b.twig' => '{% extends "a.twig" %}'];
        [$caching, $twig] = [self::environment($sources), new Environment(new ArrayLoader($sources), ['use_yield' => true])];

        // Twig's, marked as compiled with string methods (Internal\StringMethods).
        $marked = static fn (string $class): string => \str_replace('__TwigTemplate_', '__TwigTemplate_s3_', $class);
        foreach (['a.twig', 'b.twig', 'a.twig'] as $name) {
            self::assertSame($marked($twig->getTemplateClass($name)), $caching->getTemplateClass($name));
            self::assertSame($marked($twig->getTemplateClass($name, 2)), $caching->getTemplateClass($name, 2));
        }
    }

    public function testStrictVariablesSwitchedOnLaterApplyToIncludedTemplates(): void
    {
        $twig = self::environment(['page.twig' => '[{% include "part.twig" %}]', 'part.twig' => '{{ missing }}']);
        self::assertSame('[]', $twig->render('page.twig'));

        $twig->enableStrictVariables();

        $this->expectException(RuntimeError::class);
        $twig->render('page.twig');
    }

    public function testANewLoaderGivesItsOwnTemplates(): void
    {
        $twig = self::environment(['page.twig' => '[{% include "part.twig" %}]', 'part.twig' => 'old']);
        self::assertSame('[old]', $twig->render('page.twig'));

        $twig->setLoader(new ArrayLoader(['page.twig' => '[{% include "part.twig" %}]', 'part.twig' => 'new']));

        self::assertSame('[new]', $twig->render('page.twig'));
    }

    /** @param array<string, string> $templates */
    private static function environment(array $templates): ClassCachingEnvironment
    {
        return new ClassCachingEnvironment(new ArrayLoader($templates), ['use_yield' => true, 'cache' => false]);
    }
}
