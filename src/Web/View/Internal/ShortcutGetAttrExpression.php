<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Compiler;
use Twig\Extension\SandboxExtension;
use Twig\Node\Expression\AbstractExpression;
use Twig\Node\Expression\ArrayExpression;
use Twig\Node\Expression\ConstantExpression;
use Twig\Node\Expression\GetAttrExpression;
use Twig\Template;

/**
 * `user.name` with a shortcut: the value Twig's CoreExtension::getAttribute() finds first,
 * found in the compiled template itself. That call takes ten arguments and tests a dozen
 * cases before it reaches the usual ones, an array key or a public (or magic, __isset()
 * and __get()) property: ~3,400 instructions for a model's attribute, ~1,300 more than
 * the shortcut (blog `GET /` prints four). Compiled, for `user.name`:
 *
 *     (is_array($v = <user>) && array_key_exists('name', $v) ? $v['name']
 *         : ($v instanceof DirectAttributes && ($w = $v->directAttribute('name')) !== AttributeMiss::Miss ? $w
 *         : (is_object($v) && !$v instanceof ArrayAccess && !$v instanceof Template && isset($v->name) ? $v->name
 *         : CoreExtension::getAttribute($this->env, $this->source, $v, 'name', ...))))
 *
 * The first and third tests are the ones getAttribute() makes, in its order of precedence
 * for an array and for an object (an ArrayAccess object is asked for an offset first, a
 * Template refused): when they answer, getAttribute() would return that same value. The
 * second lets an object that knows what Twig would find answer in one call (a model's
 * attribute: two magic calls, __isset() and __get(), otherwise; -700 instructions a
 * print), or decline (DirectAttributes). Anything else — a missing key, a null property, a
 * method (`user.fullName`), strict variables' errors — is left to getAttribute() with the
 * arguments Twig would have passed, so the result is the same.
 *
 * Only for a plain `.name`: a constant identifier, no arguments, not null-safe (in the
 * chain either), not under a `defined` test, no sandbox. Otherwise Twig's own compilation.
 *
 * @internal made by ShortcutAttributeVisitor
 */
final class ShortcutGetAttrExpression extends GetAttrExpression
{
    /** A copy of $node, a plain `.name` (applies() said so), compiled with the shortcut. */
    public static function of(GetAttrExpression $node): self
    {
        [$target, $attribute] = [$node->getNode('node'), $node->getNode('attribute')];
        $arguments = $node->hasNode('arguments') ? $node->getNode('arguments') : null;
        \assert($target instanceof AbstractExpression && $attribute instanceof ConstantExpression);
        \assert($arguments === null || $arguments instanceof ArrayExpression);
        $copy = new self($target, $attribute, $arguments, Template::ANY_CALL, $node->getTemplateLine());
        $copy->attributes = $node->attributes; // ignore_strict_check and the rest, as set so far
        if (($source = $node->getSourceContext()) !== null) {
            $copy->setSourceContext($source);
        }

        return $copy;
    }

    /** Whether $node is a plain `.name` (see the class comment); checked again when compiling. */
    public static function applies(GetAttrExpression $node): bool
    {
        if ($node->getAttribute('type') !== Template::ANY_CALL || $node->isDefinedTestEnabled()) {
            return false;
        }
        if ($node->hasNode('arguments')) {
            $arguments = $node->getNode('arguments');
            if (!$arguments instanceof ArrayExpression || \count($arguments) > 0) {
                return false;
            }
        }
        $attribute = $node->getNode('attribute');
        if (!$attribute instanceof ConstantExpression || !\is_string($name = $attribute->getAttribute('value'))
            || \preg_match('/^[A-Za-z_][A-Za-z0-9_]*$/', $name) !== 1) {
            return false;
        }
        for ($link = $node; $link instanceof GetAttrExpression; $link = $link->getNode('node')) {
            if ($link->getAttribute('null_safe')) {
                return false;
            }
        }

        return true;
    }

    public function compile(Compiler $compiler): void
    {
        if (!self::shortcuts($this, $compiler)) {
            parent::compile($compiler);

            return;
        }
        $v = '$' . $compiler->getVarName();
        $w = '$' . $compiler->getVarName();
        $compiler
            ->raw("(\\is_array({$v} = ")
            ->subcompile($this->getNode('node'))
            ->raw(')');
        $this->compileLookup($compiler, $v, $w);
    }

    /** Whether compile() takes the shortcut for $node: applies(), and no sandbox to ask. */
    public static function shortcuts(GetAttrExpression $node, Compiler $compiler): bool
    {
        return self::applies($node) && !$compiler->getEnvironment()->hasExtension(SandboxExtension::class);
    }

    /**
     * The shortcut (if shortcuts() says so) on the object or array the PHP variable $v
     * already holds, evaluated from this node's `node` by the caller (ShortcutDateExpression).
     */
    public function compileOn(Compiler $compiler, string $v): void
    {
        $compiler->raw("(\\is_array({$v})");
        $this->compileLookup($compiler, $v, '$' . $compiler->getVarName());
    }

    /** What follows the first `is_array(...)` test of the shortcut, on $v ($w: a variable of its own). */
    private function compileLookup(Compiler $compiler, string $v, string $w): void
    {
        $name = $this->getNode('attribute')->getAttribute('value');
        \assert(\is_string($name));
        $compiler
            ->raw(" && \\array_key_exists('{$name}', {$v}) ? {$v}['{$name}']")
            ->raw(' : (' . $v . ' instanceof \\' . DirectAttributes::class . " && ({$w} = {$v}->directAttribute('{$name}')) !== \\" . AttributeMiss::class . "::Miss ? {$w}")
            ->raw(" : (\\is_object({$v})")
            ->raw(" && !{$v} instanceof \\ArrayAccess && !{$v} instanceof \\Twig\\Template && isset({$v}->{$name}) ? {$v}->{$name}")
            ->raw(" : \\Twig\\Extension\\CoreExtension::getAttribute(\$this->env, \$this->source, {$v}, '{$name}', [], ")
            ->repr(Template::ANY_CALL)
            ->raw(', false, ')
            ->repr($this->getAttribute('ignore_strict_check'))
            ->raw(', false, ')
            ->repr($this->getNode('node')->getTemplateLine())
            ->raw('))))');
    }
}
