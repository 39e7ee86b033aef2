<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Closure;
use Twig\Extension\AbstractExtension;

/**
 * The functions added with View::addFunction(), where the templates compiled by that View
 * call them directly (DirectFunctionExpression). The TwigFunctions themselves are added to
 * the Environment as usual, so Twig still checks their names, arguments and safety; this
 * extension only holds their callables, by name, one instance per View's Environment.
 *
 * @internal registered by View
 */
final class ViewFunctions extends AbstractExtension
{
    /**
     * Read by compiled templates: `$this->extensions[ViewFunctions::class]->callables['url']`.
     *
     * @var array<string, Closure>
     */
    public array $callables = [];
}
