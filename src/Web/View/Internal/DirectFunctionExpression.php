<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Compiler;
use Twig\Node\Expression\ConstantExpression;
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
 * A function added as pure (`addFunction('url', $app->url(...), pure: true)`: its result
 * depends on its arguments only) and called with constant arguments is called once, its
 * result remembered by the View (ViewFunctions) and read on later calls:
 *
 *     (($_v0 = $this->extensions['...ViewFunctions'])->results['url(\'home\')']
 *         ?? $_v0->remember('url(\'home\')', 'url', ($_v0->callables['url'])("home")))
 *
 * The lookup costs ~150 instructions where App::url() costs ~1,000 (a call to the closure,
 * App::url(), UrlGenerator::generate()): blog `GET /` calls `url()` three times. A call
 * that fails is not remembered: it fails again on the next render, with the same error.
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
        $name = $function->getDynamicName();
        $call = $this->constantCall($compiler, $name);
        if ($call === null) {
            $compiler
                ->raw('($this->extensions[')
                ->repr(ViewFunctions::class)
                ->raw(']->callables[')
                ->repr($name)
                ->raw('])');
            $this->compileArguments($compiler);

            return;
        }
        $functions = '$' . $compiler->getVarName();
        $compiler
            ->raw("(({$functions} = \$this->extensions[")
            ->repr(ViewFunctions::class)
            ->raw("])->results[")
            ->string($call)
            ->raw("] ?? {$functions}->remember(")
            ->string($call)
            ->raw(', ')
            ->string($name)
            ->raw(", ({$functions}->callables[")
            ->string($name)
            ->raw('])');
        $this->compileArguments($compiler);
        $compiler->raw('))');
    }

    /**
     * The call as a key of the remembered results (the name in the template and the
     * arguments: `url('home')`), if the function is pure in the compiling View and every
     * argument is a constant; null otherwise.
     */
    private function constantCall(Compiler $compiler, string $name): ?string
    {
        $env = $compiler->getEnvironment();
        if (!$env->hasExtension(ViewFunctions::class) || !isset($env->getExtension(ViewFunctions::class)->pure[$name])) {
            return null;
        }
        $arguments = [];
        foreach ($this->getNode('arguments') as $key => $argument) {
            if (!$argument instanceof ConstantExpression) {
                return null;
            }
            $arguments[] = (\is_int($key) ? '' : "{$key}: ") . \var_export($argument->getAttribute('value'), true);
        }

        return $this->getAttribute('name') . '(' . \implode(', ', $arguments) . ')';
    }
}
