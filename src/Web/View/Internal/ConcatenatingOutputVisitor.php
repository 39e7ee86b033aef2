<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Environment;
use Twig\Extension\SandboxExtension;
use Twig\Node\Node;
use Twig\Node\Nodes;
use Twig\Node\TextNode;
use Twig\NodeVisitor\NodeVisitorInterface;

/**
 * Compiles each run of consecutive output nodes in a list of nodes (a template's or a
 * block's body, an `if` branch, a `for` body: Twig's Nodes) as one `yield`: the run's
 * template text and `{{ ... }}` (exactly Twig's TextNode and PrintNode) become one
 * ConcatenatedOutputNode, which says how and why; a run of text only becomes one TextNode.
 * Anything else ends a run: a block reference or `{{ parent() }}` (`yield from`), an
 * include, an `if`, a `for`, a `set`, a subclass of either node.
 *
 * Blog `GET /` renders 25 pieces of output, 9 with the merge: 147,902 -> 144,778 instructions
 * a request (callgrind, bench/micro/blog-app.php --instructions).
 *
 * Runs after Twig's visitors and ShortcutAttributeVisitor (256), on the nodes as they will
 * be compiled; only StructureShortcutsVisitor (258) comes later, and it replaces nodes that
 * end a run, never a piece of one. Not with Twig's sandbox (its visitor wraps what is
 * printed in its own checks; left as Twig compiles it). The same in debug mode and outside
 * it.
 *
 * Twig internals this relies on (3.30; check them when upgrading Twig): a Nodes compiles its
 * children in order and nothing else; PrintNode and TextNode compile as ConcatenatedOutputNode
 * repeats (`yield (string) <expr>;` unless a string, `yield from` for a generator);
 * ModuleNode::compileIsTraitable() counts the child nodes of the body's nodes (hence text-only
 * runs stay a TextNode, without children).
 *
 * @internal registered by View (Internal\CompilationShortcuts)
 */
final class ConcatenatingOutputVisitor implements NodeVisitorInterface
{
    public function enterNode(Node $node, Environment $env): Node
    {
        return $node;
    }

    public function leaveNode(Node $node, Environment $env): Node
    {
        // A Nodes compiles its children one after another (Node::compile()), nothing between.
        if ($node::class !== Nodes::class || $env->hasExtension(SandboxExtension::class)) {
            return $node;
        }
        $children = [];
        foreach ($node as $name => $child) {
            if (!\is_int($name)) { // a list of named nodes (a `use`'s targets): not output
                return $node;
            }
            $children[] = $child;
        }

        $merged = [];
        $run = [];
        foreach ($children as $child) {
            if (ConcatenatedOutputNode::isPiece($child)) {
                $run[] = $child;
                continue;
            }
            self::endRun($run, $merged);
            $merged[] = $child;
        }
        self::endRun($run, $merged);
        if (\count($merged) === \count($children)) {
            return $node;
        }

        // The same node (its tag, its source), with the new list of children.
        foreach (\array_keys(\iterator_to_array($node)) as $name) {
            $node->removeNode((string) $name);
        }
        foreach ($merged as $i => $child) {
            $node->setNode((string) $i, $child);
        }

        return $node;
    }

    public function getPriority(): int
    {
        return 257;
    }

    /**
     * Adds the $run of pieces to $nodes, as one node when it has two or more, and empties it.
     *
     * @param list<Node> $run
     * @param list<Node> $nodes
     */
    private static function endRun(array &$run, array &$nodes): void
    {
        if (\count($run) < 2) {
            \array_push($nodes, ...$run);
        } elseif (\array_filter($run, static fn (Node $piece): bool => !$piece instanceof TextNode) === []) {
            // Text only: one TextNode, still no child nodes (ModuleNode::compileIsTraitable() counts them).
            $text = new TextNode(\implode('', \array_map(static fn (Node $piece): string => (string) $piece->getAttribute('data'), $run)), $run[0]->getTemplateLine());
            if (($source = $run[0]->getSourceContext()) !== null) {
                $text->setSourceContext($source);
            }
            $nodes[] = $text;
        } else {
            $nodes[] = new ConcatenatedOutputNode($run);
        }
        $run = [];
    }
}
