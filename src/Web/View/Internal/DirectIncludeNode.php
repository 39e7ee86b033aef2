<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Attribute\YieldReady;
use Twig\Compiler;
use Twig\Node\Expression\ConstantExpression;
use Twig\Node\IncludeNode;

/**
 * `{% include %}` running the included template's display directly instead of through
 * Template::yield(): one generator and two method calls fewer per include (see
 * StructureShortcutsVisitor for what it saves, and why not with `ignore missing`).
 *
 *     // line 19
 *     $_v0 = $this->petrelLoaded["_nav.html.twig"] ??= $this->load("_nav.html.twig", 19);
 *     try {
 *         yield from $_v0->doDisplay($context, $_v0->blocks);
 *     } catch (\Throwable $_v1) {
 *         RenderFailure::rethrow($_v0, $_v1);
 *     }
 *
 * That is Template::yield() inlined: the context (with the globals, see below), the
 * template's own blocks (array_merge() with no blocks given returns them as they are: block
 * names are never numeric), the same error handling. Loading stays outside the try, as it
 * is outside yield() (a missing template is reported against the including one).
 * doDisplay() and $blocks are protected members of Twig\Template, which a compiled template
 * may reach on another template. LoadedTemplates says when the loaded template is kept.
 *
 * The globals are added only to an `only` include's variables. Any other include passes
 * the including code's $context (with variables merged in), which holds them already:
 * every context a compiled template's code runs with starts from one that has them
 * (Template::yield() adds them, so do MacroNode's and WithNode's code, and this node and
 * DirectParentNode pass theirs on), and no Twig code removes a key from a context. Adding
 * them again changed nothing (`$context + $globals` keeps what $context has) but cost a
 * copy of the context and two method calls.
 *
 * @internal made by StructureShortcutsVisitor
 */
#[YieldReady]
final class DirectIncludeNode extends IncludeNode
{
    public function compile(Compiler $compiler): void
    {
        $template = '$' . $compiler->getVarName();
        $compiler
            ->addDebugInfo($this)
            ->write("{$template} = ");
        $expr = $this->getNode('expr');
        LoadedTemplates::compileKeep($compiler, $expr instanceof ConstantExpression && \is_string($name = $expr->getAttribute('value')) ? $name : null);
        $this->addGetTemplate($compiler);
        $compiler->raw(";\n");
        RenderFailure::compileCall($compiler, $template, function (Compiler $compiler) use ($template): void {
            $compiler->raw('doDisplay(');
            $this->addTemplateArguments($compiler);
            $compiler->raw(($this->getAttribute('only') ? ' + $this->env->getGlobals()' : '') . ", {$template}->blocks)");
        });
    }
}
