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
 * It also remembers the results of pure functions (`addFunction(..., pure: true)`) called
 * with constant arguments, `url('home')`: see DirectFunctionExpression.
 *
 * @internal registered by View
 */
final class ViewFunctions extends AbstractExtension
{
    /** How many results are remembered (call sites in templates: a template made from a string at run time adds its own). */
    private const RESULTS_MAX = 1024;

    /**
     * Read by compiled templates: `$this->extensions[ViewFunctions::class]->callables['url']`.
     *
     * @var array<string, Closure>
     */
    public array $callables = [];

    /** @var array<string, true> the names (as added) of the functions added as pure */
    public array $pure = [];

    /**
     * Read by compiled templates: the result of a call with constant arguments to a pure
     * function, by the call (`url('home')`); only remember() writes.
     *
     * @var array<string, mixed>
     */
    public array $results = [];

    /**
     * $result, which the function added as $name returned for the constant call $call,
     * remembered if it is pure in this View. The compiled call asks whether the function is
     * pure when it is compiled, but a compiled class is shared by the Views of one template
     * directory, whose functions of the same name may differ: asked again here.
     */
    public function remember(string $call, string $name, mixed $result): mixed
    {
        if (isset($this->pure[$name])) {
            if (\count($this->results) >= self::RESULTS_MAX) {
                $this->results = [];
            }
            $this->results[$call] = $result;
        }

        return $result;
    }
}
