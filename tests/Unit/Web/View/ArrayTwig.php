<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Twig\Environment;
use Twig\Extension\ExtensionInterface;
use Twig\Loader\ArrayLoader;
use Twig\TwigFunction;

/**
 * The Twig environments the visitor tests compare: templates from an array, HTML
 * autoescaping, `use_yield` as View has it, strict variables in debug mode, and a `boom()`
 * function that throws a DomainException. With $shortcuts, the visitor under test.
 */
final class ArrayTwig
{
    /**
     * @param array<string, string> $templates name => source
     * @param ExtensionInterface|null $shortcuts the visitor under test, as an extension of a
     *     class of its own: Twig names a compiled class after the template and the classes of
     *     the environment's extensions (not its visitors), so a class compiled in this process
     *     without the visitor, or with another one, would otherwise be used as is
     */
    public static function create(array $templates, bool $debug = false, ?ExtensionInterface $shortcuts = null): Environment
    {
        $twig = new Environment(new ArrayLoader($templates), [
            'use_yield' => true,
            'cache' => false,
            'autoescape' => 'html',
            'debug' => $debug,
            'strict_variables' => $debug,
        ]);
        $twig->addFunction(new TwigFunction('boom', static function (): string {
            throw new \DomainException('boom');
        }));
        if ($shortcuts !== null) {
            $twig->addExtension($shortcuts);
        }

        return $twig;
    }

    /** The PHP that $twig compiles template $name to. */
    public static function compiled(Environment $twig, string $name): string
    {
        return $twig->compileSource($twig->getLoader()->getSourceContext($name));
    }
}
