<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Environment;
use Twig\Node\Expression\GetAttrExpression;
use Twig\Node\Node;
use Twig\NodeVisitor\NodeVisitorInterface;

/**
 * Swaps each plain `.name` attribute access (Twig's GetAttrExpression) for one compiled
 * with a shortcut: ShortcutGetAttrExpression says which and why. Runs after Twig's own
 * visitors (the optimizer's priority is 255), on the nodes as they will be compiled.
 *
 * @internal registered by View (Internal\CompilationShortcuts)
 */
final class ShortcutAttributeVisitor implements NodeVisitorInterface
{
    public function enterNode(Node $node, Environment $env): Node
    {
        return $node;
    }

    public function leaveNode(Node $node, Environment $env): Node
    {
        // Exactly Twig's class: a subclass (an extension's own node) may compile otherwise.
        if ($node::class === GetAttrExpression::class && ShortcutGetAttrExpression::applies($node)) {
            return ShortcutGetAttrExpression::of($node);
        }

        return $node;
    }

    public function getPriority(): int
    {
        return 256;
    }
}
