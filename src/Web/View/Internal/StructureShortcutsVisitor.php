<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Environment;
use Twig\Extension\SandboxExtension;
use Twig\Node\BlockReferenceNode;
use Twig\Node\Expression\AbstractExpression;
use Twig\Node\Expression\ConstantExpression;
use Twig\Node\IncludeNode;
use Twig\Node\ModuleNode;
use Twig\Node\Node;
use Twig\Node\Nodes;
use Twig\NodeVisitor\NodeVisitorInterface;

/**
 * Compiles where a template displays a block, its includes and its `extends` as direct
 * calls (DirectBlockNode, DirectIncludeNode, DirectParentNode) rather than through
 * Twig\Template's yieldBlock() and yield(). Each of those is a generator of its own between
 * the caller and the code that yields the output, plus a few method calls. A page's layout,
 * blocks and includes cost much of its rendering: the blog's home page (a layout, three
 * blocks, an include) took 65,100 instructions to render, the same page written as one
 * template 36,300. With the direct blocks and include it takes 58,100 (callgrind; blog
 * `GET /` 143,504 -> 136,538); with View rendering through the template (no
 * TemplateWrapper::stream()) 57,000, and with the direct parent too 54,300. Outside debug
 * mode an include or parent named by a constant is also loaded once per template, not on
 * every render (LoadedTemplates: -4,100).
 *
 * Only Twig's own nodes (exact classes: an `embed` is an IncludeNode subclass, left as it
 * is), an include without `ignore missing` (its try around the load stays Twig's), and
 * `extends` with a constant name. Not with Twig's sandbox, whose checks the direct
 * calls would have to repeat. The same in debug mode and outside it: the output and the
 * errors are the same. Runs after every other visitor, so they all see Twig's own nodes.
 *
 * Twig internals this relies on (3.30; check them when upgrading Twig): what yieldBlock()'s
 * first branch and yield() do and how ModuleNode compiles the call to a parent (the nodes'
 * docblocks copy them), and the private Template::handleException() they report errors
 * with (RenderFailure calls it).
 *
 * @internal registered by View (Internal\CompilationShortcuts)
 */
final class StructureShortcutsVisitor implements NodeVisitorInterface
{
    public function enterNode(Node $node, Environment $env): Node
    {
        return $node;
    }

    public function leaveNode(Node $node, Environment $env): Node
    {
        if ($env->hasExtension(SandboxExtension::class)) {
            return $node;
        }
        if ($node instanceof ModuleNode) {
            self::addDirectParent($node);
            if (LoadedTemplates::applies($env)) {
                $node->getNode('class_end')->setNode(LoadedTemplates::PROPERTY, new LoadedTemplates());
            }

            return $node;
        }
        $direct = match ($node::class) {
            BlockReferenceNode::class => new DirectBlockNode((string) $node->getAttribute('name'), $node->getTemplateLine()),
            IncludeNode::class => $node->getAttribute('ignore_missing') ? null : self::directInclude($node),
            default => null,
        };
        if ($direct === null) {
            return $node;
        }
        if (($source = $node->getSourceContext()) !== null) {
            $direct->setSourceContext($source);
        }
        if (($tag = $node->getNodeTag()) !== null) {
            $direct->setNodeTag($tag);
        }

        return $direct;
    }

    /**
     * A child template of a constant parent gets DirectParentNode at the end of its body,
     * unless something is to be compiled after ModuleNode's own call to the parent.
     */
    private static function addDirectParent(ModuleNode $module): void
    {
        if (!$module->hasNode('parent') || \count($module->getNode('display_end')) > 0) {
            return;
        }
        $parent = $module->getNode('parent');
        if (!$parent instanceof ConstantExpression || !\is_string($name = $parent->getAttribute('value'))) {
            return;
        }
        $direct = new DirectParentNode($name, $parent->getTemplateLine());
        if (($source = $module->getSourceContext()) !== null) {
            $direct->setSourceContext($source);
        }
        $module->setNode('body', new Nodes([$module->getNode('body'), $direct]));
    }

    private static function directInclude(Node $include): DirectIncludeNode
    {
        $expr = $include->getNode('expr');
        $variables = $include->hasNode('variables') ? $include->getNode('variables') : null;
        \assert($expr instanceof AbstractExpression && ($variables === null || $variables instanceof AbstractExpression));

        return new DirectIncludeNode($expr, $variables, (bool) $include->getAttribute('only'), false, $include->getTemplateLine());
    }

    /** After every other visitor: they see Twig's nodes, and this one sees display_end as compiled. */
    public function getPriority(): int
    {
        return 258;
    }
}
