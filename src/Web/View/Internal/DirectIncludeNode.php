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
 *     $_v0 = $this->load("_nav.html.twig", 19);
 *     try {
 *         $_v0->ensureSecurityChecked();
 *         yield from $_v0->doDisplay($context + $this->env->getGlobals(), $_v0->blocks);
 *     } catch (\Throwable $_v1) {
 *         RenderFailure::rethrow($_v0, $_v1);
 *     }
 *
 * That is Template::yield() inlined: the context plus the globals, the template's own blocks
 * (array_merge() with no blocks given returns them as they are: block names are never
 * numeric), the same error handling. Loading stays outside the try, as it is outside
 * yield() (a missing template is reported against the including one). doDisplay() and
 * $blocks are protected members of Twig\Template, which a compiled template may reach on
 * another template.
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
            $compiler->raw(" + \$this->env->getGlobals(), {$template}->blocks)");
        });
    }
}
