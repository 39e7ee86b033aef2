<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

/**
 * Adds to each compiled template class a second form of its display and of each of its
 * blocks, a method that returns the output as one string instead of a generator yielding
 * its pieces; View renders through them (StringRenderable::petrelRender()). A generator
 * costs ~1,500 instructions to make and run, and the blog's `GET /` ran seven a render
 * (Twig's yield(), the displays of the page, its layout and the navigation it includes,
 * three blocks): 110,321 -> 103,184 instructions a request (docs/performance.md).
 *
 * The string form is made from the generator's own compiled code, token by token (PHP's
 * tokenizer, not patterns), so it runs the same statements in the same order:
 *
 *     yield EXPR;                                  $__petrelOut .= EXPR;
 *     yield from $t->doDisplay(ARGS);              $__petrelOut .= $t->petrelDisplay(ARGS);
 *     yield from $t->block_NAME(ARGS);             $__petrelOut .= $t->petrel_block_NAME(ARGS);
 *     yield from $b[0]->{$b[1]}(ARGS);             $__petrelOut .= $b[0]->{'petrel_' . $b[1]}(ARGS);
 *     yield from EXPR;   (anything else)           foreach (EXPR as $__petrelPiece) { $__petrelOut .= $__petrelPiece; }
 *     return;                                      return $__petrelOut;
 *
 * The direct calls are the ones the structure shortcuts compile (DirectParentNode,
 * DirectIncludeNode, DirectBlockNode), on templates of the same Environment, which all get
 * these methods; anything else a generator yields from (Twig's yieldBlock(), yield() of a
 * template named at run time, `parent()`) is collected as it comes. Concatenation converts
 * a piece to string as implode() did. Closures inside a method (Twig compiles captures such
 * as `{% set x %}…{% endset %}` to generator closures) are copied as they are. A method with
 * anything else (a `yield` used as a value or with a key, a `return` with a value, an
 * anonymous class, an arrow function that yields) gets a string form that runs the
 * generator and joins its pieces: the same output, without the saving.
 *
 * Errors report the same template line: the new methods keep every line break of the
 * originals, and getDebugInfo() (compiled PHP line => template line, which Twig reads from
 * the stack trace) gets their lines too.
 *
 * @internal used by ClassCachingEnvironment::compile()
 */
final class StringMethods
{
    private const OUT = '$__petrelOut';

    /**
     * StringRenderable::petrelRender(), added to each class on its first line: Template::yield()
     * with the string form of the display (the globals added to the context, the template's
     * blocks, errors reported against the template as Twig reports them). The caller passes
     * the globals (View: read once, not with two calls a render). Twig's security check
     * first, where the class has one of its own (compiled under a sandbox): elsewhere it is
     * Twig\Template's empty method, ~150 instructions a render for nothing.
     */
    private const RENDER = 'public function petrelRender(array $context, array $globals): string { try { %s'
        . 'return $this->petrelDisplay($context + $globals, $this->blocks); } '
        . 'catch (\\Throwable $error) { \\' . RenderFailure::class . '::rethrow($this, $error); } }';
    private const SECURITY_CHECK = '$this->ensureSecurityChecked(); ';
    private const PIECE = '$__petrelPiece';

    private readonly CompiledTokens $code;

    /** @var array<int, \PhpToken> the code's tokens */
    private readonly array $tokens;

    private function __construct(string $source)
    {
        $this->code = new CompiledTokens($source);
        $this->tokens = $this->code->tokens;
    }

    /** $source (a compiled template: one class, more with `{% embed %}`) with the string methods added. */
    public static function addTo(string $source): string
    {
        return (new self($source))->transform();
    }

    /** The name of a display or block method's string form ("" for any other method). */
    private static function stringName(string $method): string
    {
        return match (true) {
            $method === 'doDisplay' => 'petrelDisplay',
            \str_starts_with($method, 'block_') => 'petrel_' . $method,
            default => '',
        };
    }

    private function transform(): string
    {
        $out = '';
        $debugInfos = []; // placeholder of a class's getDebugInfo() map => the map
        $moved = []; // placeholder => [first line, last line, new first line] of each of the class's string methods
        $added = []; // [original line, line breaks added before it] for each class's string methods
        $count = \count($this->tokens);
        for ($i = 0; $i < $count; ++$i) {
            $token = $this->tokens[$i];
            if (!$token->is(\T_CLASS) || $this->code->previousSignificant($i)?->is([\T_DOUBLE_COLON, \T_NEW]) === true) {
                $out .= $token->text;
                continue;
            }
            // A class declaration (`class NAME extends Template {`): it implements StringRenderable.
            $open = $this->code->next($i, '{');
            $close = $this->code->matching($open);
            $implements = $this->code->contains($i, $open, [\T_IMPLEMENTS]) ? ', ' : ' implements ';
            $header = $this->tokens[$open - 1]->is(\T_WHITESPACE) ? $open - 2 : $open - 1;
            $out .= $this->code->text($i, $header) . $implements . '\\' . StringRenderable::class . $this->code->text($header + 1, $open - 1)
                . '{ ' . \sprintf(self::RENDER, $this->declaresMethod($open, $close, 'ensureSecurityChecked') ? self::SECURITY_CHECK : '');

            $methods = [];
            $placeholder = null;
            for ($j = $open + 1; $j < $close; ++$j) {
                $member = $this->tokens[$j];
                if (!$member->is(\T_FUNCTION) || ($name = $this->code->nextSignificant($j)) === null) {
                    $out .= $member->text;
                    continue;
                }
                $bodyOpen = $this->code->next($j, '{');
                $bodyClose = $this->code->matching($bodyOpen);
                if (self::stringName($name->text) !== '') {
                    $methods[] = [$j, $bodyOpen, $bodyClose];
                } elseif ($name->text === 'getDebugInfo') {
                    // Its `return array (...);`, written again once the new lines are known.
                    $return = $this->code->next($j, \T_RETURN);
                    $end = $this->code->expressionEnd($return, [';']);
                    $placeholder = "\0petrel-debug-info-" . \count($debugInfos) . "\0" . \str_repeat("\n", \substr_count($this->code->text($return, $end), "\n"));
                    $debugInfos[$placeholder] = $this->debugInfoMap($return, $end);
                    $moved[$placeholder] = [];
                    $out .= $this->code->text($j, $return - 1) . $placeholder . $this->code->text($end + 1, $bodyClose);
                    $j = $bodyClose;
                    continue;
                }
                $out .= $this->code->text($j, $bodyClose);
                $j = $bodyClose;
            }
            $lines = \substr_count($out, "\n");
            foreach ($methods as [$function, $bodyOpen, $bodyClose]) {
                $out .= "\n    ";
                $line = \substr_count($out, "\n") + 1;
                $out .= $this->stringMethod($function, $bodyOpen, $bodyClose) . "\n";
                if ($placeholder !== null) {
                    $moved[$placeholder][] = [$this->tokens[$function]->line, $this->tokens[$bodyClose]->line, $line];
                }
            }
            $added[] = [$this->tokens[$close]->line, \substr_count($out, "\n") - $lines];
            $out .= $this->tokens[$close]->text;
            $i = $close;
        }

        foreach ($debugInfos as $placeholder => $map) {
            $export = 'return ' . self::exportMap(self::withMoved($map, $moved[$placeholder], $added)) . ';';
            $out = \str_replace($placeholder, $export . \str_repeat("\n", \substr_count($placeholder, "\n")), $out);
        }

        return $out;
    }

    /**
     * The string form of the method declared at $function, whose body spans $open..$close;
     * if the body holds anything the rewrite does not cover, one that joins the generator's
     * pieces.
     */
    private function stringMethod(int $function, int $open, int $close): string
    {
        $name = $this->code->nextSignificantIndex($function);
        $string = self::stringName($this->tokens[$name]->text);
        $parameters = $this->code->next($name, '(');
        $parametersEnd = $this->code->matching($parameters);
        $signature = 'public function ' . $string . $this->code->text($parameters, $parametersEnd) . ': string';
        // The line breaks between the signature and the body, kept.
        $signature .= \str_repeat("\n", \substr_count($this->code->text($parametersEnd + 1, $open - 1), "\n")) . '    ';

        $body = $this->stringBody($open, $close);
        if ($body === null) {
            $lines = \substr_count($this->code->text($open, $close), "\n");
            $body = '{ ' . self::OUT . " = ''; foreach (\$this->" . $this->tokens[$name]->text . '(' . $this->argumentsOf($parameters) . ') as '
                . self::PIECE . ') { ' . self::OUT . ' .= ' . self::PIECE . '; } return ' . self::OUT . ';' . \str_repeat("\n", $lines) . '}';
        }

        return $signature . $body;
    }

    /** The body $open..$close rewritten to collect its output, or null if it holds what the rewrite does not cover. */
    private function stringBody(int $open, int $close): ?string
    {
        $out = '{ ' . self::OUT . " = '';";
        for ($i = $open + 1; $i < $close; ++$i) {
            $token = $this->tokens[$i];
            if ($token->is(\T_FUNCTION)) { // a closure: its own generator or function, copied
                $end = $this->code->matching($this->code->next($i, '{'));
                $out .= $this->code->text($i, $end);
                $i = $end;
            } elseif ($token->is(\T_FN)) { // an arrow function: copied, unless it yields
                $arrow = $this->code->next($this->code->matching($this->code->next($i, '(')), \T_DOUBLE_ARROW);
                $end = $this->code->expressionEnd($arrow + 1, [',', ';', ')', ']', '}']);
                if ($this->code->contains($i, $end - 1, [\T_YIELD, \T_YIELD_FROM])) {
                    return null;
                }
                $out .= $this->code->text($i, $end - 1);
                $i = $end - 1;
            } elseif ($token->is([\T_YIELD, \T_YIELD_FROM]) && !$this->isStatement($i)) {
                return null; // a yield used as a value
            } elseif ($token->is(\T_YIELD_FROM)) {
                $end = $this->code->expressionEnd($i + 1, [';']);
                if ($this->code->contains($i + 1, $end - 1, [\T_YIELD, \T_YIELD_FROM]) || $this->code->containsOutside($i + 1, $end - 1, [\T_LOGICAL_AND, \T_LOGICAL_OR, \T_LOGICAL_XOR])) {
                    return null;
                }
                $out .= $this->collect($i + 1, $end - 1) . ';';
                $i = $end;
            } elseif ($token->is(\T_YIELD)) {
                $end = $this->code->expressionEnd($i + 1, [';']);
                if ($this->code->nextSignificantIndex($i) === $end) { // `yield;` (Twig's `return; yield;`)
                    continue;
                }
                // Not a yield inside, a key (`yield $k => $v`) nor an operator binding looser than `.=`.
                if ($this->code->contains($i + 1, $end - 1, [\T_YIELD, \T_YIELD_FROM]) || $this->code->containsOutside($i + 1, $end - 1, [\T_DOUBLE_ARROW, \T_LOGICAL_AND, \T_LOGICAL_OR, \T_LOGICAL_XOR], skipArrowFunctions: true)) {
                    return null;
                }
                $out .= self::OUT . ' .=' . $this->code->text($i + 1, $end);
                $i = $end;
            } elseif ($token->is(\T_RETURN)) {
                if ($this->code->nextSignificantIndex($i) !== $this->code->expressionEnd($i + 1, [';'])) {
                    return null; // a generator's return value
                }
                $out .= 'return ' . self::OUT;
            } elseif ($token->is(\T_CLASS) && $this->code->previousSignificant($i)?->is(\T_DOUBLE_COLON) !== true) {
                return null; // an anonymous class
            } else {
                $out .= $token->text;
            }
        }

        return $out . 'return ' . self::OUT . '; }';
    }

    /** Whether the token at $i starts a statement that ends with a `;` (`yield …;`, not `$x = yield …`). */
    private function isStatement(int $i): bool
    {
        $previous = $this->code->previousSignificant($i);

        return ($previous === null || $previous->is([';', '{', '}', ')', ':', \T_ELSE, \T_OPEN_TAG]))
            && $this->tokens[$this->code->expressionEnd($i + 1, [';'])]->text === ';';
    }

    /** `yield from` the expression $from..$to, as a statement adding its output (without the `;`). */
    private function collect(int $from, int $to): string
    {
        $last = $to;
        while ($this->tokens[$last]->is(\T_WHITESPACE)) {
            --$last;
        }
        if ($this->tokens[$last]->text === ')') {
            $arguments = $this->code->matchingBackwards($last);
            $method = $this->code->previousSignificantIndex($arguments);
            $arrow = $method === null ? null : $this->code->previousSignificantIndex($method);
            if ($arrow !== null && $this->tokens[$method]->is(\T_STRING) && ($string = self::stringName($this->tokens[$method]->text)) !== ''
                && $this->tokens[$arrow]->is(\T_OBJECT_OPERATOR) && $this->code->depthZero($from, $arrow)) {
                return self::OUT . ' .=' . $this->code->text($from, $method - 1) . $string . $this->code->text($method + 1, $to);
            }
            if ($method !== null && $this->tokens[$method]->text === '}') {
                $brace = $this->code->matchingBackwards($method);
                $arrow = $this->code->previousSignificantIndex($brace);
                if ($arrow !== null && $this->tokens[$arrow]->is(\T_OBJECT_OPERATOR) && $this->code->depthZero($from, $arrow)) {
                    return self::OUT . ' .=' . $this->code->text($from, $brace) . "'petrel_' . " . $this->code->text($brace + 1, $to);
                }
            }
        }

        return 'foreach (' . $this->code->text($from, $to) . ' as ' . self::PIECE . ') { ' . self::OUT . ' .= ' . self::PIECE . '; }';
    }

    /** Whether the class body $open..$close declares the method $name. */
    private function declaresMethod(int $open, int $close, string $name): bool
    {
        for ($i = $open + 1; $i < $close; ++$i) {
            if ($this->tokens[$i]->is(\T_FUNCTION) && $this->code->nextSignificant($i)?->text === $name) {
                return true;
            }
        }

        return false;
    }

    /** The arguments of a parameter list starting at $open, as variables: `$context, $blocks`. */
    private function argumentsOf(int $open): string
    {
        $names = [];
        for ($i = $open + 1, $close = $this->code->matching($open); $i < $close; ++$i) {
            if ($this->tokens[$i]->is(\T_VARIABLE)) {
                $names[] = $this->tokens[$i]->text;
            }
        }

        return \implode(', ', $names);
    }














    /** @return array<int, int> getDebugInfo()'s map, read from its `return array (...)` statement ($from..$to) */
    private function debugInfoMap(int $from, int $to): array
    {
        \preg_match_all('/(\d+)\s*=>\s*(\d+)/', $this->code->text($from, $to), $pairs, \PREG_SET_ORDER);
        $map = [];
        foreach ($pairs as [, $code, $template]) {
            $map[(int) $code] = (int) $template;
        }

        return $map;
    }

    /**
     * $map with the lines of the string methods: a method copied from lines $first..$last
     * to $new.. maps each of its lines as the original line does. The lines of what follows
     * a class given string methods (the next class, with `{% embed %}`) move down by the
     * line breaks added.
     *
     * @param array<int, int> $map compiled line => template line
     * @param list<array{int, int, int}> $moved
     * @param list<array{int, int}> $added
     * @return array<int, int> in descending order of compiled lines, as Twig reads it
     */
    private static function withMoved(array $map, array $moved, array $added): array
    {
        $result = [];
        foreach ($map as $code => $template) {
            $shift = 0;
            foreach ($added as [$line, $breaks]) {
                $shift += $code >= $line ? $breaks : 0;
            }
            $result[$code + $shift] = $template;
        }
        \krsort($map);
        foreach ($moved as [$first, $last, $new]) {
            $result[$new] = self::templateLineAt($map, $first);
            foreach ($map as $code => $template) {
                if ($code > $first && $code <= $last) {
                    $result[$code - $first + $new] = $template;
                }
            }
        }
        \krsort($result);

        return $result;
    }

    /**
     * The template line Twig reports for compiled line $line (Error::guessTemplateInfo()'s lookup); 0 if none.
     *
     * @param array<int, int> $map in descending order of compiled lines
     */
    private static function templateLineAt(array $map, int $line): int
    {
        foreach ($map as $code => $template) {
            if ($code <= $line) {
                return $template;
            }
        }

        return 0;
    }

    /** @param array<int, int> $map */
    private static function exportMap(array $map): string
    {
        $pairs = [];
        foreach ($map as $code => $template) {
            $pairs[] = "{$code} => {$template}";
        }

        return '[' . \implode(', ', $pairs) . ']';
    }
}
