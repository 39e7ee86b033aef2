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
 *             if ($_v0[1] === 'block_content') {
 *                 yield from $_v0[0]->block_content($context, $blocks);
 *             } else {
 *                 yield from $_v0[0]->{$_v0[1]}($context, $blocks);
 *             }
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
 * The method is named in the code when it is the block's own (`block_` and its name, as
 * Twig names it; a block taken from a trait with `{% use … with a as b %}` keeps another
 * name): PHP looks a method called by a name in a variable up on every call (the name
 * lower-cased, then found), and the string form adds a concatenation ('petrel_' . name),
 * ~400 instructions a block that a literal name, resolved once, does not cost (blog
 * `GET /`: three blocks, -1,200).
 *
 * @internal made by StructureShortcutsVisitor
 */
#[YieldReady]
final class DirectBlockNode extends BlockReferenceNode
{
    public function compile(Compiler $compiler): void
    {
        $blockName = (string) $this->getAttribute('name'); // a NAME token: letters, digits, _
        $name = \var_export($blockName, true);
        $method = 'block_' . $blockName; // the name Twig gives the block's method
        $block = '$' . $compiler->getVarName();
        $compiler
            ->addDebugInfo($this)
            ->write("if (({$block} = \$blocks[{$name}] ?? null) !== null && {$block}[0] instanceof \\Twig\\Template) {\n")
            ->indent();
        RenderFailure::compileTry($compiler, "{$block}[0]", static fn (Compiler $compiler) => $compiler
            ->write("if ({$block}[1] === '{$method}') {\n")
            ->indent()
            ->write("yield from {$block}[0]->{$method}(\$context, \$blocks);\n")
            ->outdent()
            ->write("} else {\n")
            ->indent()
            ->write("yield from {$block}[0]->{{$block}[1]}(\$context, \$blocks);\n")
            ->outdent()
            ->write("}\n"));
        $compiler
            ->outdent()
            ->write("} else {\n")
            ->indent()
            ->write("yield from \$this->unwrap()->yieldBlock({$name}, \$context, \$blocks);\n")
            ->outdent()
            ->write("}\n");
    }
}
