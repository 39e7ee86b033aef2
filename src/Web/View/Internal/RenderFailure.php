<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Template;

/**
 * The error handling of Twig's Template::yield() and yieldBlock(), for the shortcuts that
 * call a block or an included template's display directly (DirectBlockNode,
 * DirectIncludeNode): the error is reported against $template as Twig reports it
 * (a Twig error gets $template's source and a guessed line if it has none; anything else
 * is wrapped in a RuntimeError "An exception has been thrown during the rendering of a
 * template"). Twig's Template::handleException() itself is called, private as it is, so
 * the messages stay Twig's; only on an error, so what it costs does not matter.
 *
 * @internal called by compiled templates
 */
final class RenderFailure
{
    public static function rethrow(Template $template, \Throwable $error): never
    {
        /** @var \Closure(\Throwable): never $handle */
        $handle = \Closure::bind(fn (\Throwable $error) => $this->handleException($error), $template, Template::class);
        $handle($error);
    }
}
