<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Attribute\YieldReady;
use Twig\Compiler;
use Twig\Node\Node;

/**
 * `{% extends "layout" %}` (a constant name) running the parent's display directly instead
 * of through Template::yield(): one generator and two method calls fewer per render (see
 * StructureShortcutsVisitor). Added by the visitor at the end of a child template's body,
 * where Twig's ModuleNode compiles its own call to the parent right after:
 *
 *     // line 1
 *     $this->parent = $this->petrelLoaded["layout"] ??= $this->load("layout", 1);
 *     try {
 *         yield from $this->parent->doDisplay($context,
 *             \array_merge($this->parent->blocks, $this->blocks, $blocks));
 *     } catch (\Throwable $_v0) {
 *         RenderFailure::rethrow($this->parent, $_v0);
 *     }
 *     return;
 *
 * That is ModuleNode's `$this->parent = $this->load(...)` and `yield from
 * $this->parent->unwrap()->yield($context, array_merge($this->blocks, $blocks))` with
 * Template::yield() inlined (the parent's blocks merged in front, the same error handling);
 * `return` leaves ModuleNode's own code unreached. The visitor adds it only where nothing is
 * compiled after that code (an empty display_end). LoadedTemplates says when the parent is
 * kept; the globals are not added again, as DirectIncludeNode explains: the child's
 * $context holds them already.
 *
 * Where the parent is kept, the merged blocks are kept too, for the usual case: the child
 * is the template rendered, and $blocks its own blocks (petrelRender(), Template::yield()).
 * Merging them again gives the same array, the parent's blocks and the child's being
 * those of the same two instances for the life of the worker; array_merge() of the three
 * cost ~800 instructions a render (blog `GET /`):
 *
 *     ($blocks === $this->blocks ? ($this->petrelParentBlocks ??= \array_merge($this->parent->blocks, $this->blocks))
 *         : \array_merge($this->parent->blocks, $this->blocks, $blocks))
 *
 * @internal made by StructureShortcutsVisitor
 */
#[YieldReady]
final class DirectParentNode extends Node
{
    public function __construct(string $parent, int $lineno)
    {
        parent::__construct([], ['parent' => $parent], $lineno);
    }

    public function compile(Compiler $compiler): void
    {
        $compiler
            ->addDebugInfo($this)
            ->write('$this->parent = ');
        LoadedTemplates::compileKeep($compiler, (string) $this->getAttribute('parent'));
        $compiler
            ->raw('$this->load(')
            ->repr($this->getAttribute('parent'))
            ->raw(', ')
            ->repr($this->getTemplateLine())
            ->raw(");\n");
        $blocks = '\\array_merge($this->parent->blocks, $this->blocks, $blocks)';
        if (LoadedTemplates::applies($compiler->getEnvironment())) {
            $blocks = '($blocks === $this->blocks ? ($this->' . LoadedTemplates::PARENT_BLOCKS . ' ??= \\array_merge($this->parent->blocks, $this->blocks)) : ' . $blocks . ')';
        }
        RenderFailure::compileCall($compiler, '$this->parent', static fn (Compiler $compiler) => $compiler
            ->raw("doDisplay(\$context, {$blocks})"));
        $compiler->write("return;\n");
    }
}
