<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Validation;

use Petrel\Http\Request;
use Petrel\Web\Error\ErrorRenderer;
use Petrel\Web\Error\HttpError;
use Petrel\Web\Error\UnprocessableEntity;
use Petrel\Web\Validation\Internal\FieldRules;
use Petrel\Web\Validation\Internal\InputPath;
use Petrel\Web\Validation\Internal\RuleChecks;
use Petrel\Web\Validation\RuleError;
use Petrel\Web\Validation\ValidationException;
use Petrel\Web\Validation\Validator;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(Validator::class)]
#[CoversClass(ValidationException::class)]
#[CoversClass(FieldRules::class)]
#[CoversClass(RuleChecks::class)]
#[CoversClass(InputPath::class)]
final class ValidatorTest extends TestCase
{
    /**
     * Rules, a value for field "f", and what comes out: the validated value, or the error.
     *
     * @return iterable<string, array{string, mixed, array{0: 'ok', 1: mixed}|array{0: 'error', 1: string}}>
     */
    public static function cases(): iterable
    {
        // presence
        yield 'required present' => ['required', 'x', ['ok', 'x']];
        yield 'required empty string' => ['required', '', ['error', 'The f field is required.']];
        yield 'required whitespace' => ['required', "  \t", ['error', 'The f field is required.']];
        yield 'required null' => ['required', null, ['error', 'The f field is required.']];
        yield 'required empty array' => ['required', [], ['error', 'The f field is required.']];
        yield 'required zero' => ['required|int', '0', ['ok', 0]];
        yield 'required false' => ['required|bool', false, ['ok', false]];
        // types
        yield 'string' => ['string', 'hello', ['ok', 'hello']];
        yield 'string rejects int' => ['string', 5, ['error', 'The f field must be text (UTF-8).']];
        // Accepted, it reached Response::json() (a JsonException: a 500 on every later read
        // of the record) or PostgreSQL (an error on the INSERT).
        yield 'string rejects invalid UTF-8' => ['string|max:3', "\xFF\xFF\xFF", ['error', 'The f field must be text (UTF-8).']];
        yield 'string takes UTF-8' => ['string|max:3', 'Zoë', ['ok', 'Zoë']];
        yield 'int from string' => ['int', '42', ['ok', 42]];
        yield 'int negative' => ['integer', '-7', ['ok', -7]];
        yield 'int leading zeros' => ['int', '007', ['ok', 7]];
        yield 'int native' => ['int', 12, ['ok', 12]];
        yield 'int rejects float text' => ['int', '4.2', ['error', 'The f field must be an integer.']];
        yield 'int rejects float' => ['int', 4.0, ['error', 'The f field must be an integer.']];
        yield 'int rejects overflow' => ['int', '99999999999999999999', ['error', 'The f field must be an integer.']];
        yield 'int rejects text' => ['int', '12abc', ['error', 'The f field must be an integer.']];
        yield 'int rejects bool' => ['int', true, ['error', 'The f field must be an integer.']];
        yield 'float from string' => ['float', '1.5', ['ok', 1.5]];
        yield 'float from int' => ['numeric', 3, ['ok', 3.0]];
        yield 'float exponent' => ['float', '1e3', ['ok', 1000.0]];
        yield 'float rejects text' => ['float', 'abc', ['error', 'The f field must be a number.']];
        yield 'bool on' => ['bool', 'on', ['ok', true]];
        yield 'bool true text' => ['boolean', 'true', ['ok', true]];
        yield 'bool one' => ['bool', '1', ['ok', true]];
        yield 'bool zero' => ['bool', '0', ['ok', false]];
        yield 'bool off' => ['bool', 'off', ['ok', false]];
        yield 'bool rejects' => ['bool', 'maybe', ['error', 'The f field must be true or false.']];
        yield 'array' => ['array', ['a', 'b'], ['ok', ['a', 'b']]];
        yield 'array rejects string' => ['array', 'a', ['error', 'The f field must be an array.']];
        // formats
        yield 'email' => ['email', 'ada@example.com', ['ok', 'ada@example.com']];
        yield 'email invalid' => ['email', 'ada@', ['error', 'The f field must be a valid email address.']];
        yield 'url' => ['url', 'https://example.com/a?b=c', ['ok', 'https://example.com/a?b=c']];
        yield 'url invalid' => ['url', 'not a url', ['error', 'The f field must be a valid URL.']];
        yield 'url javascript' => ['url', 'javascript://x/%0Aalert(1)', ['error', 'The f field must be a valid URL.']];
        yield 'url schemes' => ['url:ftp', 'ftp://example.com/file', ['ok', 'ftp://example.com/file']];
        yield 'url schemes rejects' => ['url:ftp', 'https://example.com', ['error', 'The f field must be a valid URL.']];
        yield 'date' => ['date', '2024-02-29', ['ok', '2024-02-29']];
        yield 'date impossible' => ['date', '2023-02-29', ['error', 'The f field must be a valid date in the format Y-m-d.']];
        yield 'date wrong format' => ['date', '29/02/2024', ['error', 'The f field must be a valid date in the format Y-m-d.']];
        yield 'date custom format' => ['date:d/m/Y', '29/02/2024', ['ok', '29/02/2024']];
        yield 'date with time' => ['date:Y-m-d H:i', '2024-01-01 10:30', ['ok', '2024-01-01 10:30']];
        yield 'regex' => ['regex:/^[a-z-]+$/', 'my-slug', ['ok', 'my-slug']];
        yield 'regex fails' => ['regex:/^[a-z-]+$/', 'My Slug', ['error', 'The f field format is invalid.']];
        yield 'regex with comma' => ['regex:/^a{1,2}$/', 'aa', ['ok', 'aa']];
        yield 'in' => ['in:admin,editor', 'editor', ['ok', 'editor']];
        yield 'in fails' => ['in:admin,editor', 'root', ['error', 'The selected f is invalid.']];
        yield 'in int' => ['int|in:1,2,3', '2', ['ok', 2]];
        // sizes
        yield 'min length' => ['string|min:3', 'ab', ['error', 'The f field must be at least 3 characters.']];
        yield 'max length multibyte' => ['max:3', 'Zoë', ['ok', 'Zoë']];
        yield 'max length' => ['max:3', 'abcd', ['error', 'The f field must not be greater than 3 characters.']];
        yield 'numeric string length without type' => ['max:2', '100', ['error', 'The f field must not be greater than 2 characters.']];
        yield 'min value' => ['int|min:18', '17', ['error', 'The f field must be at least 18.']];
        yield 'max value' => ['float|max:1.5', '1.5', ['ok', 1.5]];
        yield 'max value fails' => ['int|max:10', '11', ['error', 'The f field must not be greater than 10.']];
        yield 'native int without type' => ['min:5', 3, ['error', 'The f field must be at least 5.']];
        yield 'between value' => ['int|between:1,5', '5', ['ok', 5]];
        yield 'between value fails' => ['int|between:1,5', '6', ['error', 'The f field must be between 1 and 5.']];
        // Compared as floats, the bounds lost their last digits from 2^53 up.
        yield 'max value past 2^53' => ['int|max:9007199254740992', '9007199254740993', ['error', 'The f field must not be greater than 9007199254740992.']];
        yield 'between near PHP_INT_MAX' => ['int|between:1,9223372036854775806', '9223372036854775807', ['error', 'The f field must be between 1 and 9223372036854775806.']];
        yield 'min value past 2^53' => ['int|min:9007199254740993', '9007199254740993', ['ok', 9007199254740993]];
        yield 'between length' => ['between:2,3', 'abcd', ['error', 'The f field must be between 2 and 3 characters.']];
        yield 'min count' => ['array|min:2', ['a'], ['error', 'The f field must have at least 2 items.']];
        yield 'max count' => ['array|max:1', ['a', 'b'], ['error', 'The f field must not have more than 1 items.']];
        yield 'between count' => ['array|between:1,1', ['a', 'b'], ['error', 'The f field must have between 1 and 1 items.']];
        // a failed type skips the rest
        yield 'type failure stops' => ['int|min:3|in:4', 'x', ['error', 'The f field must be an integer.']];
        yield 'empty rules' => ['', 'anything', ['ok', 'anything']];
    }

    /** @param array{0: 'ok', 1: mixed}|array{0: 'error', 1: string} $expected */
    #[DataProvider('cases')]
    public function testRules(string $rules, mixed $value, array $expected): void
    {
        try {
            $data = Validator::validate(['f' => $value, 'other' => 'dropped'], ['f' => $rules]);
            self::assertSame('ok', $expected[0], 'Expected a validation error');
            self::assertSame(['f' => $expected[1]], $data);
        } catch (ValidationException $e) {
            self::assertSame('error', $expected[0], 'Unexpected error: ' . \json_encode($e->errors()));
            self::assertSame(['f' => [$expected[1]]], $e->errors());
        }
    }

    public function testAbsentAndEmptyOptionalFields(): void
    {
        $data = Validator::validate(
            ['empty' => '', 'null' => null, 'nullable_empty' => '', 'nullable_null' => null],
            ['empty' => 'int', 'null' => 'string', 'absent' => 'string', 'nullable_empty' => 'nullable|int', 'nullable_null' => 'nullable|email', 'nullable_absent' => 'nullable|int'],
        );
        self::assertSame(['nullable_empty' => null, 'nullable_null' => null], $data);
    }

    public function testCollectsAllErrorsWithReadableNames(): void
    {
        try {
            Validator::validate(
                ['first_name' => '', 'email' => 'nope', 'password' => 'abc', 'password_confirmation' => 'abd'],
                ['first_name' => 'required|string', 'email' => 'required|email', 'password' => 'required|min:8|confirmed', 'age' => 'required|int'],
            );
            self::fail('Expected ValidationException');
        } catch (ValidationException $e) {
            self::assertSame([
                'first_name' => ['The first name field is required.'],
                'email' => ['The email field must be a valid email address.'],
                'password' => ['The password field must be at least 8 characters.', 'The password field confirmation does not match.'],
                'age' => ['The age field is required.'],
            ], $e->errors());
            self::assertSame($e->errors(), $e->getErrors());
            self::assertSame(422, $e->getStatus());
            self::assertSame('The given data was invalid.', $e->getPublicMessage());
            self::assertInstanceOf(UnprocessableEntity::class, $e);
            self::assertInstanceOf(HttpError::class, $e);
        }
    }

    public function testConfirmedPassesAndDropsTheConfirmation(): void
    {
        $data = Validator::validate(['pin' => '1234', 'pin_confirmation' => '1234'], ['pin' => 'int|confirmed']);
        self::assertSame(['pin' => 1234], $data);
        $this->expectException(ValidationException::class);
        Validator::validate(['pin' => '1234'], ['pin' => 'confirmed']);
    }

    public function testNestedFields(): void
    {
        $input = ['address' => ['city' => 'Oslo', 'zip' => '0150', 'extra' => 'x'], 'tags' => ['a'], 'flat.key' => '5'];
        $data = Validator::validate($input, [
            'address.city' => 'required|string',
            'address.zip' => 'required|regex:/^\d{4}$/',
            'address.country' => 'nullable|string',
            'flat.key' => 'int',
        ]);
        self::assertSame(['address' => ['city' => 'Oslo', 'zip' => '0150'], 'flat' => ['key' => 5]], $data);

        try {
            Validator::validate(['address' => 'not an array'], ['address.city' => 'required']);
            self::fail('Expected ValidationException');
        } catch (ValidationException $e) {
            self::assertSame(['address.city' => ['The address city field is required.']], $e->errors());
        }
    }

    /** A field named "0" or "1" (a list, a CSV row) is an int key in PHP: it was a TypeError, a 500. */
    public function testNumericFieldNames(): void
    {
        self::assertSame([0 => 'ada', 1 => 36], Validator::validate(['ada', '36', 'dropped'], ['0' => 'required|string', '1' => 'int']));
        try {
            Validator::validate(['ada'], ['0' => 'int', '1' => 'required']);
            self::fail('Expected ValidationException');
        } catch (ValidationException $e) {
            self::assertSame([0 => ['The 0 field must be an integer.'], 1 => ['The 1 field is required.']], $e->errors());
            // "errors" is an object in JSON, field => messages, also when the fields are 0, 1, …
            $response = (new ErrorRenderer())->render($e, Request::create('GET', '/', ['Accept' => 'application/json']), false);
            self::assertStringContainsString('"errors":{"0":["The 0 field must be an integer."],"1":["The 1 field is required."]}', (string) $response->getBody());
        }
    }

    /** "a" set after "a.b" put the input back over the cast value. */
    public function testAFieldAndAFieldWithinItKeepTheInnerCastInAnyOrder(): void
    {
        $input = ['a' => ['b' => '5', 'c' => 'x']];
        foreach ([['a' => 'array', 'a.b' => 'int'], ['a.b' => 'int', 'a' => 'array']] as $rules) {
            self::assertSame(['a' => ['b' => 5, 'c' => 'x']], Validator::validate($input, $rules));
        }
    }

    public function testClosureRules(): void
    {
        $notReserved = static fn (mixed $value): bool|string => $value !== 'admin' ?: 'The name is reserved.';
        $even = static fn (mixed $value, string $field, array $input): bool => $value % 2 === 0 && $field === 'n' && isset($input['n']);
        $nullIsFine = static fn (): ?string => null;

        self::assertSame(['name' => 'ada', 'n' => 4], Validator::validate(['name' => 'ada', 'n' => '4'], [
            'name' => ['required', 'string', $notReserved, $nullIsFine],
            'n' => ['int', $even],
        ]));
        try {
            Validator::validate(['name' => 'admin', 'n' => '3'], ['name' => ['string', $notReserved], 'n' => ['int', $even]]);
            self::fail('Expected ValidationException');
        } catch (ValidationException $e) {
            self::assertSame(['name' => ['The name is reserved.'], 'n' => ['The n field is invalid.']], $e->errors());
        }
    }

    public function testArrayRulesKeepPipesInRegexes(): void
    {
        self::assertSame(['kind' => 'b'], Validator::validate(['kind' => 'b'], ['kind' => ['required', 'regex:/^(a|b)$/']]));
    }

    /** @return iterable<string, array{mixed, string}> */
    public static function badRules(): iterable
    {
        yield 'unknown' => ['required|sting', 'Unknown validation rule "sting" for field "f"'];
        yield 'min without number' => ['min', 'Rule "min" of field "f" takes 1 parameter(s), got 0'];
        yield 'min not numeric' => ['min:abc', 'Rule "min" of field "f" needs numbers, got "abc"'];
        yield 'between one bound' => ['between:1', 'Rule "between" of field "f" takes 2 parameter(s), got 1'];
        yield 'between reversed' => ['between:5,1', 'Rule "between" of field "f" has its bounds reversed'];
        yield 'in without values' => ['in:', 'Rule "in" of field "f" takes at least 1 parameter(s), got 0'];
        yield 'bad regex' => [['regex:/(unclosed/'], 'Rule "regex" of field "f" has an invalid pattern /(unclosed/'];
        yield 'type with parameter' => ['int:5', 'Rule "int" of field "f" takes no parameter'];
        yield 'not a string' => [[42], 'Rule for field "f" must be a string or a Closure, got int'];
    }

    /** A wildcard path was taken for a literal key "*": optional, it checked nothing, silently. */
    public function testWildcardPathsAreARuleError(): void
    {
        $this->expectException(RuleError::class);
        $this->expectExceptionMessage('Field "items.*.name": wildcard paths are not supported');
        Validator::validate(['items' => [['name' => 42]]], ['items.*.name' => 'string']);
    }

    #[DataProvider('badRules')]
    public function testMalformedRulesFailBeforeLookingAtInput(mixed $rules, string $message): void
    {
        $this->expectException(RuleError::class);
        $this->expectExceptionMessage($message);
        Validator::validate([], ['f' => $rules]);
    }
}
