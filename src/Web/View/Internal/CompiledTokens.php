<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

/**
 * The PHP tokens of a compiled template's source, with the lookups StringMethods rewrites
 * it by: the next token of a kind, the bracket matching one, the end of an expression, the
 * text of a range. Brackets are counted by kind-blind depth: `(`, `[`, `{` (and `{$`, `${`
 * in strings) open, their closers close.
 *
 * @internal used by StringMethods
 */
final class CompiledTokens
{
    /** @var array<int, \PhpToken> */
    public readonly array $tokens;

    public function __construct(string $source)
    {
        $this->tokens = \PhpToken::tokenize($source);
    }

    /** Whether the tokens $from..$to - 1 sit outside any bracket (a method call on the whole expression, not inside it). */
    public function depthZero(int $from, int $to): bool
    {
        $depth = 0;
        for ($i = $from; $i < $to; ++$i) {
            $depth += self::bracketDelta($this->tokens[$i]);
            if ($depth < 0) {
                return false;
            }
        }

        return $depth === 0;
    }

    /**
     * Index of the first token of $stops at bracket depth 0 from $from on (for `;`: the statement's end).
     *
     * @param list<string> $stops
     */
    public function expressionEnd(int $from, array $stops): int
    {
        $depth = 0;
        for ($i = $from, $count = \count($this->tokens); $i < $count; ++$i) {
            $token = $this->tokens[$i];
            if ($depth === 0 && \in_array($token->text, $stops, true)) {
                return $i;
            }
            $depth += self::bracketDelta($token);
            if ($depth < 0) {
                return $i;
            }
        }

        throw new \LogicException('Unterminated expression in a compiled template');
    }

    private static function bracketDelta(\PhpToken $token): int
    {
        return match ($token->text) {
            '(', '[', '{' => 1,
            ')', ']', '}' => -1,
            default => $token->is([\T_CURLY_OPEN, \T_DOLLAR_OPEN_CURLY_BRACES]) ? 1 : 0,
        };
    }

    public function matching(int $open): int
    {
        $depth = 0;
        for ($i = $open, $count = \count($this->tokens); $i < $count; ++$i) {
            $depth += self::bracketDelta($this->tokens[$i]);
            if ($depth === 0) {
                return $i;
            }
        }

        throw new \LogicException('Unbalanced brackets in a compiled template');
    }

    public function matchingBackwards(int $close): int
    {
        $depth = 0;
        for ($i = $close; $i >= 0; --$i) {
            $depth -= self::bracketDelta($this->tokens[$i]);
            if ($depth === 0) {
                return $i;
            }
        }

        throw new \LogicException('Unbalanced brackets in a compiled template');
    }

    /** Index of the next token after $i that is $kind (a token id or its text). */
    public function next(int $i, int|string $kind): int
    {
        for (++$i, $count = \count($this->tokens); $i < $count; ++$i) {
            if ($this->tokens[$i]->is($kind)) {
                return $i;
            }
        }

        throw new \LogicException('Unexpected end of a compiled template');
    }

    /** @param list<int> $kinds */
    public function contains(int $from, int $to, array $kinds): bool
    {
        for ($i = $from; $i <= $to; ++$i) {
            if ($this->tokens[$i]->is($kinds)) {
                return true;
            }
        }

        return false;
    }

    /**
     * Whether a token of $kinds sits in $from..$to outside any bracket (and, with
     * $skipArrowFunctions, outside an arrow function's own `=>`).
     *
     * @param list<int> $kinds
     */
    public function containsOutside(int $from, int $to, array $kinds, bool $skipArrowFunctions = false): bool
    {
        $depth = 0;
        $arrows = 0; // arrow functions whose `=>` is still to come
        for ($i = $from; $i <= $to; ++$i) {
            $token = $this->tokens[$i];
            if ($skipArrowFunctions && $token->is(\T_FN)) {
                ++$arrows;
            } elseif ($arrows > 0 && $token->is(\T_DOUBLE_ARROW)) {
                --$arrows;
            } elseif ($depth === 0 && $token->is($kinds)) {
                return true;
            }
            $depth += self::bracketDelta($token);
        }

        return false;
    }

    public function nextSignificant(int $i): ?\PhpToken
    {
        return $this->tokens[$this->nextSignificantIndex($i)] ?? null;
    }

    /** Index of the next token after $i that is not whitespace or a comment (the end of the tokens if none). */
    public function nextSignificantIndex(int $i): int
    {
        for (++$i, $count = \count($this->tokens); $i < $count; ++$i) {
            if (!$this->tokens[$i]->isIgnorable()) {
                return $i;
            }
        }

        return $count;
    }

    public function previousSignificant(int $i): ?\PhpToken
    {
        $index = $this->previousSignificantIndex($i);

        return $index === null ? null : $this->tokens[$index];
    }

    public function previousSignificantIndex(int $i): ?int
    {
        for (--$i; $i >= 0; --$i) {
            if (!$this->tokens[$i]->isIgnorable()) {
                return $i;
            }
        }

        return null;
    }

    /** The source text of tokens $from..$to, both included. */
    public function text(int $from, int $to): string
    {
        $text = '';
        for ($i = $from; $i <= $to; ++$i) {
            $text .= $this->tokens[$i]->text;
        }

        return $text;
    }
}
