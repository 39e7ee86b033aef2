<?php

declare(strict_types=1);

namespace Petrel\Web\Validation\Internal;

use Closure;
use Petrel\Web\Validation\RuleError;

/**
 * The rules of one field, parsed and checked before any input is looked at: a malformed
 * rule is a RuleError even when the input would pass.
 *
 * @internal
 */
final readonly class FieldRules
{
    /** Rules that check and cast the type, run first; the others see the cast value. */
    private const TYPES = ['string' => 'string', 'int' => 'int', 'integer' => 'int', 'float' => 'float',
        'numeric' => 'float', 'bool' => 'bool', 'boolean' => 'bool', 'array' => 'array'];

    /** Constraint rules => [min params, max params]. */
    private const CONSTRAINTS = ['email' => [0, 0], 'url' => [0, 99], 'min' => [1, 1], 'max' => [1, 1],
        'between' => [2, 2], 'in' => [1, \PHP_INT_MAX], 'regex' => [1, 1], 'confirmed' => [0, 0], 'date' => [0, 1]];

    /**
     * @param list<string> $types cast rules, in order
     * @param list<array{string, list<string>}|Closure> $constraints
     */
    private function __construct(
        public bool $required,
        public bool $nullable,
        public array $types,
        public array $constraints,
    ) {
    }

    /**
     * @param string|list<string|Closure> $rules "required|string|max:255", or a list whose
     *        strings are one rule each (so a regex may contain "|")
     * @throws RuleError
     */
    public static function parse(string $field, string|array $rules): self
    {
        if (\in_array('*', \explode('.', $field), true)) {
            // Taken as a literal key "*", such a rule checked nothing and said nothing.
            throw new RuleError("Field \"{$field}\": wildcard paths are not supported; check the list with an array rule and a Closure, or each item with Validator::validate()");
        }
        $required = $nullable = false;
        $types = $constraints = [];
        foreach (\is_string($rules) ? \explode('|', $rules) : $rules as $rule) {
            if ($rule instanceof Closure) {
                $constraints[] = $rule;
                continue;
            }
            if (!\is_string($rule)) {
                throw new RuleError("Rule for field \"{$field}\" must be a string or a Closure, got " . \get_debug_type($rule));
            }
            if (\trim($rule) === '') {
                continue;
            }
            $parts = \explode(':', \trim($rule), 2);
            $name = \strtolower($parts[0]);
            $argument = $parts[1] ?? null;
            $isFlagOrType = $name === 'required' || $name === 'nullable' || isset(self::TYPES[$name]);
            if ($isFlagOrType && $argument !== null) {
                throw new RuleError("Rule \"{$name}\" of field \"{$field}\" takes no parameter");
            }
            if ($name === 'required') {
                $required = true;
            } elseif ($name === 'nullable') {
                $nullable = true;
            } elseif (isset(self::TYPES[$name])) {
                $types[] = self::TYPES[$name];
            } elseif (isset(self::CONSTRAINTS[$name])) {
                $constraints[] = [$name, self::parameters($field, $name, $argument)];
            } else {
                throw new RuleError("Unknown validation rule \"{$name}\" for field \"{$field}\"");
            }
        }

        return new self($required, $nullable, $types, $constraints);
    }

    /** Whether min/max/between compare the value rather than a length or count. */
    public function isNumeric(): bool
    {
        return \in_array('int', $this->types, true) || \in_array('float', $this->types, true);
    }

    /** @return list<string> */
    private static function parameters(string $field, string $name, ?string $argument): array
    {
        // A regex or a date format is one parameter even if it contains commas.
        $parameters = match (true) {
            $argument === null || $argument === '' => [],
            $name === 'regex' || $name === 'date' => [$argument],
            default => \explode(',', $argument),
        };
        [$least, $most] = self::CONSTRAINTS[$name];
        if (\count($parameters) < $least || \count($parameters) > $most) {
            $expected = $least === $most ? "{$least}" : ($most === \PHP_INT_MAX ? "at least {$least}" : "{$least} to {$most}");
            throw new RuleError("Rule \"{$name}\" of field \"{$field}\" takes {$expected} parameter(s), got " . \count($parameters));
        }
        if (\in_array($name, ['min', 'max', 'between'], true)) {
            foreach ($parameters as $parameter) {
                if (!\is_numeric($parameter)) {
                    throw new RuleError("Rule \"{$name}\" of field \"{$field}\" needs numbers, got \"{$parameter}\"");
                }
            }
            if ($name === 'between' && (float) $parameters[0] > (float) $parameters[1]) {
                throw new RuleError("Rule \"between\" of field \"{$field}\" has its bounds reversed");
            }
        }
        if ($name === 'regex' && @\preg_match($parameters[0], '') === false) {
            throw new RuleError("Rule \"regex\" of field \"{$field}\" has an invalid pattern {$parameters[0]}");
        }

        return $parameters;
    }
}
