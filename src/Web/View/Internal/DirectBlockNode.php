<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Attribute\YieldReady;
use Twig\Compiler;
use Twig\Node\BlockReferenceNode;

/**
 * `{% block name %}` where a template displays it, calling the block's method directly
 * instead of through Template::yieldBlock(): one generator and three method calls fewer
 * per block (see StructureShortcutsVisitor for what it saves).
 *
 *     // line 21
 *     if (($_v0 = $blocks['content'] ?? null) !== null && $_v0[0] instanceof \Twig\Template) {
 *         try {
 *             yield from $_v0[0]->{$_v0[1]}($context, $blocks);
 *         } catch (\Throwable $_v1) {
 *             RenderFailure::rethrow($_v0[0], $_v1);
 *         }
 *     } else {
 *         yield from $this->unwrap()->yieldBlock('content', $context, $blocks);
 *     }
 *
 * The first branch is yieldBlock()'s own first branch, inlined: the same block method with
 * the same arguments, the same check that it is a template's, the same error handling (an
 * error is reported against the template that defines the block). A block that $blocks does
 * not hold (not possible from a compiled template's display, whose $blocks include its own,
 * but kept for safety) takes Twig's path.
 *
 * @internal made by StructureShortcutsVisitor
 */
#[YieldReady]
final class DirectBlockNode extends BlockReferenceNode
{
    public function compile(Compiler $compiler): void
    {
        $name = \var_export((string) $this->getAttribute('name'), true); // a NAME token: letters, digits, _
        $block = '$' . $compiler->getVarName();
        $compiler
            ->addDebugInfo($this)
            ->write("if (({$block} = \$blocks[{$name}] ?? null) !== null && {$block}[0] instanceof \\Twig\\Template) {\n")
            ->indent();
        RenderFailure::compileCall($compiler, "{$block}[0]", static fn (Compiler $compiler) => $compiler->raw("{{$block}[1]}(\$context, \$blocks)"));
        $compiler
            ->outdent()
            ->write("} else {\n")
            ->indent()
            ->write("yield from \$this->unwrap()->yieldBlock({$name}, \$context, \$blocks);\n")
            ->outdent()
            ->write("}\n");
    }
}
