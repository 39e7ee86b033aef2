<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

/**
 * A compiled template with string forms of its display and blocks (StringMethods), which
 * View renders through instead of Twig's generators.
 *
 * @internal implemented by the templates ClassCachingEnvironment compiles
 */
interface StringRenderable
{
    /**
     * The template rendered with $context plus $globals (the Environment's getGlobals()):
     * Template::yield()'s pieces, joined, with its errors.
     *
     * @param array<string, mixed> $context
     * @param array<string, mixed> $globals
     */
    public function petrelRender(array $context, array $globals): string;

    /**
     * The string form of doDisplay(): what it yields, joined.
     *
     * @param array<string, mixed> $context
     * @param array<string, array{\Twig\Template, string}> $blocks
     */
    public function petrelDisplay(array $context, array $blocks = []): string;
}
