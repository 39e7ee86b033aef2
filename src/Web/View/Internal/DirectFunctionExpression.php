<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Compiler;
use Twig\Node\Expression\FunctionExpression;
use Twig\TwigFunction;

/**
 * A call to a function added with View::addFunction() (the node class of its TwigFunction),
 * compiled as a call of its callable held by the View (ViewFunctions), instead of Twig's
 * lookup by name on every call for a callable that is not a plain function name:
 *
 *     Twig:   $this->env->getFunction('url')->getCallable()("home")
 *     here:   ($this->extensions['Petrel\Web\View\Internal\ViewFunctions']->callables['url'])("home")
 *
 * Twig's lookup is three method calls (the Environment's, its extension set's, the
 * TwigFunction's) on every call: ~800 instructions more per call than here (callgrind; blog
 * `GET /` calls `url()` three times, -2,400 a request).
 * The arguments are compiled by Twig (FunctionExpression::compileArguments(), from the
 * callable's own signature: named arguments and defaults work as before), and so are
 * everything around the call (escaping by is_safe, deprecations, the sandbox's checks):
 * only the expression that names the callable differs.
 *
 * @internal set as the node class of the functions View::addFunction() adds
 */
final class DirectFunctionExpression extends FunctionExpression
{
    protected function compileCallable(Compiler $compiler): void
    {
        $function = $this->getAttribute('twig_callable');
        \assert($function instanceof TwigFunction);
        // The name it was added under: a dynamic function ("link_*") is one entry for all
        // the names it matches, the matched parts being passed as its first arguments.
        $compiler
            ->raw('($this->extensions[')
            ->repr(ViewFunctions::class)
            ->raw(']->callables[')
            ->repr($function->getDynamicName())
            ->raw('])');
        $this->compileArguments($compiler);
    }
}
