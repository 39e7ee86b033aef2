<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Attribute\YieldReady;
use Twig\Compiler;
use Twig\Node\Expression\AbstractExpression;
use Twig\Node\Expression\ConstantExpression;
use Twig\Node\Expression\ReturnStringInterface;
use Twig\Node\Node;
use Twig\Node\NodeOutputInterface;
use Twig\Node\PrintNode;
use Twig\Node\TextNode;

/**
 * A run of consecutive output nodes (Twig's TextNode and PrintNode: template text and
 * `{{ ... }}`) compiled as one `yield` of their concatenation instead of one `yield` each:
 *
 *     // line 5
 *     yield "<h2>Hello, "
 *         . ((string) <user.name, escaped>)
 *         . "!</h2>\n<p>Member #"
 *     // line 6
 *         . ((string) <user.id, escaped>);
 *
 * With use_yield every piece of output is a `yield`: the generator suspends and resumes,
 * and View's iterator_to_array() and implode() take one more piece, ~430 instructions.
 * Concatenating costs about half that (the left operand, a temporary string, is extended
 * in place): ~200 instructions saved per `yield` merged away. Measured with callgrind:
 * `a{{ site }}b{{ site }}c{{ site }}d{{ site }}e` 20,270 -> 18,507 instructions a render;
 * blog `GET /` (25 pieces of output, 9 after the merge) 147,902 -> 144,778 a request.
 * (Temporaries and one interpolated string, `$_v1 = (string) <expr>; ... yield "a{$_v1}b";`,
 * compile to PHP's ROPE opcodes and would save ~45 more a piece; not done: statements
 * instead of one expression, and each piece kept alive until the render ends.)
 *
 * Each piece is what the node's own compile() would yield, in parentheses: a text node's
 * string (consecutive texts as one literal), `((string) <expr>)` for a print node, without
 * the cast when Twig knows the expression is a string (a string constant or a
 * ReturnStringInterface expression: PrintNode's own test, copied). So the output is the same
 * bytes (null gives '', Markup and other Stringable objects their __toString()), and the
 * pieces are evaluated in the same order, left to right, each converted to a string before
 * the next is evaluated, as before. A piece that suspends the Fiber (a function doing I/O)
 * suspends inside the expression, which is fine. The one difference: when a piece throws,
 * the earlier pieces of its run have not been yielded yet. Nothing View does can tell (it
 * joins the pieces of a whole render, or throws); only Twig's display(), which echoes each
 * piece as it comes, would have echoed a few bytes fewer before the exception.
 *
 * Line numbers. Each piece starts on its own PHP line, after the `// line N` comment of its
 * template line (Compiler::addDebugInfo(), as each node's own compile() calls it), so the
 * compiled template's getDebugInfo() maps a PHP line inside the expression to the template
 * line of its piece: an exception thrown in a later piece (a function, a filter, a
 * __toString()) reports that piece's line, as without the merge (PHP gives a call in a
 * multi-line expression the line it is written on). The node's own line, for anything that
 * asks it, is its first piece's.
 *
 * The same in debug mode and outside it: the output and the errors are identical.
 *
 * @internal made by ConcatenatingOutputVisitor
 */
#[YieldReady]
final class ConcatenatedOutputNode extends Node implements NodeOutputInterface
{
    /** @param non-empty-list<Node> $pieces in output order, each a piece (isPiece()) */
    public function __construct(array $pieces)
    {
        parent::__construct($pieces, [], $pieces[0]->getTemplateLine());
        if (($source = $pieces[0]->getSourceContext()) !== null) {
            $this->setSourceContext($source);
        }
    }

    /**
     * Whether $node can be a piece: exactly Twig's TextNode, or exactly Twig's PrintNode of an
     * expression that is not a generator (that one compiles to `yield from`). A subclass may
     * compile otherwise (an extension's own node): it is left alone and ends a run.
     */
    public static function isPiece(Node $node): bool
    {
        if ($node::class === TextNode::class) {
            return true;
        }
        if ($node::class !== PrintNode::class) {
            return false;
        }
        $expr = $node->getNode('expr');

        return $expr instanceof AbstractExpression && !$expr->isGenerator();
    }

    public function compile(Compiler $compiler): void
    {
        $pieces = \iterator_to_array($this, false);
        foreach ($pieces as $piece) {
            if (!self::isPiece($piece)) { // replaced since the visitor made this node (a later visitor)
                parent::compile($compiler);

                return;
            }
        }

        $first = true;
        $texts = []; // consecutive texts, written as one string literal
        foreach ($pieces as $i => $piece) {
            if ($piece::class === TextNode::class) {
                $texts[] = $piece;
                if (isset($pieces[$i + 1]) && $pieces[$i + 1]::class === TextNode::class) {
                    continue;
                }
                $this->startPiece($compiler, $texts[0], $first);
                $compiler->string(\implode('', \array_map(static fn (Node $text): string => self::data($text), $texts)));
                $texts = [];
            } else {
                $expr = $piece->getNode('expr');
                \assert($expr instanceof AbstractExpression);
                $this->startPiece($compiler, $piece, $first);
                $compiler
                    ->raw(self::isString($expr) ? '(' : '((string) ')
                    ->subcompile($expr)
                    ->raw(')');
            }
            $first = false;
        }
        $compiler->raw(";\n");
    }

    /** The debug info of $piece, then `yield ` for the first piece or `. ` on a new line. */
    private function startPiece(Compiler $compiler, Node $piece, bool $first): void
    {
        if (!$first) {
            $compiler->raw("\n");
        }
        $compiler->addDebugInfo($piece);
        $compiler->write($first ? 'yield ' : '    . ');
    }

    private static function data(Node $text): string
    {
        $data = $text->getAttribute('data');
        \assert(\is_string($data));

        return $data;
    }

    /** As PrintNode::isString() (private there): whether Twig knows $expr is a string, and does not cast it. */
    private static function isString(AbstractExpression $expr): bool
    {
        if ($expr instanceof ReturnStringInterface) {
            return true;
        }

        return $expr instanceof ConstantExpression && !$expr->isDefinedTestEnabled() && \is_string($expr->getAttribute('value'));
    }
}
