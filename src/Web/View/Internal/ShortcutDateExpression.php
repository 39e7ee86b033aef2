<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Compiler;
use Twig\Node\Expression\ConstantExpression;
use Twig\Node\Expression\FilterExpression;

/**
 * The `date` filter (ShortcutDateExtension's) on a plain attribute with a constant format,
 * `{{ user.created_at|date('F j, Y') }}`, compiled to ask first for the string the date
 * was stored as (ShortcutDateExtension::formatStored(), StoredDates): a model's loaded
 * date is then printed without being made an object. Compiled:
 *
 *     ($ext->formatStored($v = <user>, 'created_at', 'F j, Y')
 *         ?? $ext->formatDate(<ShortcutGetAttrExpression's lookup of 'created_at' on $v>, 'F j, Y'))
 *
 * <user> is evaluated once, first, as before; when formatStored() declines (anything but
 * a StoredDates with that date not converted yet), the rest is the filter as compiled
 * without this: the same value, the same errors. Anything else (another input, a format
 * that is not a constant string, a timezone argument, arguments by name, a sandbox) is
 * Twig's compilation.
 *
 * @internal the node class of ShortcutDateExtension's filter
 */
final class ShortcutDateExpression extends FilterExpression
{
    public function compile(Compiler $compiler): void
    {
        $attribute = $this->getNode('node');
        $arguments = \iterator_to_array($this->getNode('arguments'));
        $format = $arguments[0] ?? null;
        if (!$attribute instanceof ShortcutGetAttrExpression || !ShortcutGetAttrExpression::shortcuts($attribute, $compiler)
            || \array_keys($arguments) !== [0] || !$format instanceof ConstantExpression || !\is_string($format->getAttribute('value'))) {
            parent::compile($compiler);

            return;
        }
        $v = '$' . $compiler->getVarName();
        $extension = '$this->extensions[' . \var_export(ShortcutDateExtension::class, true) . ']';
        $compiler
            ->raw("({$extension}->formatStored({$v} = ")
            ->subcompile($attribute->getNode('node'))
            ->raw(', ')
            ->repr($attribute->getNode('attribute')->getAttribute('value'))
            ->raw(', ')
            ->subcompile($format)
            ->raw(") ?? {$extension}->formatDate(");
        $attribute->compileOn($compiler, $v);
        $compiler
            ->raw(', ')
            ->subcompile($format)
            ->raw('))');
    }
}
