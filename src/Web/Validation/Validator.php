<?php

declare(strict_types=1);

namespace Petrel\Web\Validation;

use Closure;
use Petrel\Web\Validation\Internal\FieldRules;
use Petrel\Web\Validation\Internal\InputPath;
use Petrel\Web\Validation\Internal\RuleChecks;

/**
 * Validates input (a parsed body, a query, decoded JSON) against rules and returns only the
 * validated fields, cast to their types; anything not named in the rules is dropped.
 *
 *     $data = Validator::validate($request->getParsedBody(), [
 *         'email' => 'required|email',
 *         'age' => 'nullable|int|between:13,130',
 *         'role' => 'in:admin,editor',
 *         'address.city' => ['required', 'string', 'max:80'],
 *         'slug' => ['regex:/^[a-z0-9-]+$/', fn ($value) => $value !== 'admin' ?: 'The slug is reserved.'],
 *     ]);
 *
 * Rules: a "|"-separated string, or a list (one rule per string, so a regex may contain
 * "|"), which may hold Closures. Rules are checked before the input: an unknown or malformed
 * rule is a RuleError.
 * - required: present and not empty (null, "", whitespace only, []). Without it an absent or
 *   empty field is left out of the result — unless nullable, which keeps a present empty
 *   field as null. Other rules only run on non-empty values.
 * - Types, checked first; they cast, and a failure skips the field's other rules: string,
 *   int|integer ("42" → 42), float|numeric ("1.5" → 1.5), bool|boolean (true/false, 1/0,
 *   "1"/"0", "true"/"false", "on"/"off", "yes"/"no"), array.
 * - Constraints, on the cast value: email, url[:schemes] (default http,https), min:n,
 *   max:n, between:a,b (the value for int/float fields, the count for arrays, the length in
 *   characters for strings), in:a,b,… (compared as strings), regex:/…/, confirmed (equal to
 *   "{field}_confirmation", which is not returned), date[:format] (default Y-m-d; the string
 *   is kept).
 * - Closure(mixed $value, string $field, array $input): null or true to pass, false for
 *   "The {field} field is invalid.", or a string: the message.
 * Field names may be dot paths into nested input ("address.city"); the result is nested the
 * same way, and "address" with "address.city" keeps the city's cast. Wildcard paths
 * ("items.*.name") are a RuleError: check lists with a Closure. Error messages name the
 * field with "_" and "." shown as spaces.
 */
final class Validator
{
    private function __construct()
    {
    }

    /**
     * @param array<mixed> $input
     * @param array<string, string|list<string|Closure>> $rules field => rules
     * @return array<mixed> the validated fields, cast
     * @throws ValidationException with every failing field's messages (a 422 if uncaught)
     * @throws RuleError for a malformed rule
     */
    public static function validate(array $input, array $rules): array
    {
        $parsed = [];
        foreach ($rules as $field => $fieldRules) {
            $parsed[(string) $field] = FieldRules::parse((string) $field, $fieldRules);
        }

        $valid = $errors = [];
        foreach ($parsed as $field => $fieldRules) {
            $field = (string) $field; // "0", "42": PHP made the key an int again
            [$present, $value] = InputPath::get($input, $field);
            if (!$present || self::isEmpty($value)) {
                if ($fieldRules->required) {
                    $errors[$field][] = 'The ' . RuleChecks::label($field) . ' field is required.';
                } elseif ($present && $fieldRules->nullable) {
                    $valid[$field] = null;
                }
                continue;
            }
            $messages = self::check($field, $value, $fieldRules, $input);
            if ($messages === []) {
                $valid[$field] = $value;
            } else {
                $errors[$field] = $messages;
            }
        }
        if ($errors !== []) {
            throw new ValidationException($errors);
        }
        // A field before the fields within it ("a" before "a.b"), whatever the rules' order:
        // set last, "a" replaced the cast "a.b" with its input.
        \uksort($valid, static fn (int|string $a, int|string $b): int => \substr_count((string) $a, '.') <=> \substr_count((string) $b, '.'));
        $output = [];
        foreach ($valid as $field => $value) {
            InputPath::set($output, (string) $field, $value);
        }

        return $output;
    }

    /**
     * Runs the rules on a present, non-empty value, casting it in place.
     *
     * @param array<mixed> $input
     * @return list<string> the failures' messages
     */
    private static function check(string $field, mixed &$value, FieldRules $rules, array $input): array
    {
        foreach ($rules->types as $type) {
            [$ok, $value] = RuleChecks::cast($type, $value);
            if (!$ok) {
                return [RuleChecks::typeMessage($type, RuleChecks::label($field))];
            }
        }
        $messages = [];
        foreach ($rules->constraints as $constraint) {
            if ($constraint instanceof Closure) {
                $result = $constraint($value, $field, $input);
                $message = $result === null || $result === true ? null
                    : (\is_string($result) ? $result : 'The ' . RuleChecks::label($field) . ' field is invalid.');
            } else {
                $message = RuleChecks::check($constraint[0], $constraint[1], $value, $field, $input, $rules->isNumeric());
            }
            if ($message !== null) {
                $messages[] = $message;
            }
        }

        return $messages;
    }

    private static function isEmpty(mixed $value): bool
    {
        return $value === null || $value === [] || (\is_string($value) && \trim($value) === '');
    }
}
