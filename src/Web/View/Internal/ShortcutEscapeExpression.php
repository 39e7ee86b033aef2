<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Compiler;
use Twig\Node\Expression\ConstantExpression;
use Twig\Node\Expression\FilterExpression;

/**
 * The `escape` filter (what autoescaping adds to every `{{ ... }}`) for HTML, with its first
 * test compiled inline: a string ShortcutEscaperExtension remembers as having nothing to
 * escape, and a value that is neither a string nor an object (an id, a count, null), are
 * printed as they are without a call. That is most of what a page prints (names, links,
 * the site's title, ids); the call to the extension cost ~650 instructions even then, and
 * the test inline saves ~280 of them a string printed and ~570 an int (callgrind; blog
 * `GET /` escapes ten values, one an int). Compiled, for `{{ user.name }}`:
 *
 *     ((\is_string($_v0 = <user.name>) ? isset($this->extensions[ShortcutEscaperExtension::class]->plain[$_v0]) : !\is_object($_v0))
 *         ? $_v0 : $this->extensions[ShortcutEscaperExtension::class]->escape($_v0, "html", null, true))
 *
 * The same result as the call: escape() returns such a value first thing, for the same
 * strategy and charset (as Twig's EscaperRuntime does a scalar, null or array for 'html').
 * Anything else (a string not remembered yet, an object, another strategy or a charset
 * given, arguments by name) is the call as Twig compiles it.
 *
 * @internal the node class of ShortcutEscaperExtension's filters
 */
final class ShortcutEscapeExpression extends FilterExpression
{
    public function compile(Compiler $compiler): void
    {
        if (!$this->escapesPlainHtml()) {
            parent::compile($compiler);

            return;
        }
        $value = '$' . $compiler->getVarName();
        $extension = '$this->extensions[' . \var_export(ShortcutEscaperExtension::class, true) . ']';
        $compiler
            ->raw("((\\is_string({$value} = ")
            ->subcompile($this->getNode('node'))
            ->raw(") ? isset({$extension}->plain[{$value}]) : !\\is_object({$value})) ? {$value} : {$extension}->escape({$value}");
        foreach ($this->getNode('arguments') as $argument) {
            $compiler->raw(', ')->subcompile($argument);
        }
        $compiler->raw('))');
    }

    /** Constant positional arguments: strategy 'html' (or none: the default), charset null (or none). */
    private function escapesPlainHtml(): bool
    {
        $position = 0;
        foreach ($this->getNode('arguments') as $key => $argument) {
            if ($key !== $position || !$argument instanceof ConstantExpression) {
                return false;
            }
            $value = $argument->getAttribute('value');
            if (($position === 0 && $value !== 'html') || ($position === 1 && $value !== null) || $position > 2) {
                return false;
            }
            ++$position;
        }

        return true;
    }
}
