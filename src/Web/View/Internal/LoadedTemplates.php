<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Attribute\YieldReady;
use Twig\Compiler;
use Twig\Environment;
use Twig\Node\Node;

/**
 * Where a compiled template keeps the templates it includes or extends by a constant name,
 * loaded once instead of on every render. Template::load() is four method calls (its own,
 * getTemplateName(), the Environment's getTemplateClass() and loadTemplate()) for an
 * answer that cannot change: outside debug mode a name always stands for the same compiled
 * class (View looks it up once), and the Environment keeps one instance per class.
 *
 * The visitor adds this node to the end of a template's class (ModuleNode's class_end),
 * where it declares the property (and DirectParentNode's for the parent's blocks, which
 * can no more change than the parent can); DirectIncludeNode and DirectParentNode read
 * and fill it:
 *
 *     $_v0 = $this->petrelLoaded["_nav.html.twig"] ??= $this->load("_nav.html.twig", 19);
 *
 * Not in debug mode (nor with auto_reload): there a changed template is compiled to a new
 * class, which load() finds and a kept instance would miss. Errors are load()'s own: a
 * template that fails to load is not kept.
 *
 * @internal made by StructureShortcutsVisitor
 */
#[YieldReady]
final class LoadedTemplates extends Node
{
    public const PROPERTY = 'petrelLoaded';

    /** Where a child template keeps its parent's blocks merged with its own (DirectParentNode). */
    public const PARENT_BLOCKS = 'petrelParentBlocks';

    /** Whether templates compiled in $env keep what they load (see the class comment). */
    public static function applies(Environment $env): bool
    {
        return !$env->isDebug() && !$env->isAutoReload();
    }

    /** `$this->petrelLoaded["name"] ??= ` for a load by the constant $name, if kept in $env. */
    public static function compileKeep(Compiler $compiler, ?string $name): void
    {
        if ($name !== null && self::applies($compiler->getEnvironment())) {
            $compiler->raw('$this->' . self::PROPERTY . '[')->repr($name)->raw('] ??= ');
        }
    }

    public function compile(Compiler $compiler): void
    {
        $compiler
            ->write("\n")
            ->write("/** @var array<string, \\Twig\\Template> by name: see Petrel\\Web\\View\\Internal\\LoadedTemplates */\n")
            ->write('private array $' . self::PROPERTY . " = [];\n")
            ->write("/** @var array<string, array{\\Twig\\Template, string}>|null see Petrel\\Web\\View\\Internal\\DirectParentNode */\n")
            ->write('private ?array $' . self::PARENT_BLOCKS . " = null;\n");
    }
}
