<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Extension\AbstractExtension;

/**
 * View's compile-time visitors, registered as an extension rather than with
 * Environment::addNodeVisitor(): Twig names a template's compiled class after the template
 * and the classes of the environment's extensions, not its visitors. Added loose, they left
 * the class name of a plain Twig environment's, so a class compiled without them (another
 * environment in the process; a classic-mode cache directory written by an older Petrel) was
 * used as is. As an extension they are part of the name.
 *
 * @internal registered by View
 */
final class CompilationShortcuts extends AbstractExtension
{
    public function getNodeVisitors(): array
    {
        // In priority order: ShortcutAttributeVisitor (256) rewrites attribute reads;
        // ConcatenatingOutputVisitor (257) merges the output nodes as they will be compiled;
        // StructureShortcutsVisitor (258, last) swaps blocks, includes and the call to a
        // parent for direct calls, none of which a merged run holds.
        return [new StructureShortcutsVisitor(), new ShortcutAttributeVisitor(), new ConcatenatingOutputVisitor()];
    }
}
