<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\RespEncoder;
use Petrel\Redis\Internal\RespParser;
use Petrel\Tests\Support\RequiresServices;
use Random\Engine\Mt19937;
use Random\Randomizer;

#[CoversClass(RespEncoder::class)]
final class RespEncoderTest extends TestCase
{
    use RequiresServices;

    public function testEncodesACommandAsAnArrayOfBulkStrings(): void
    {
        self::assertSame(
            "*3\r\n\$3\r\nSET\r\n\$3\r\nkey\r\n\$5\r\nvalue\r\n",
            RespEncoder::encode(['SET', 'key', 'value']),
        );
    }

    public function testSingleWordCommand(): void
    {
        self::assertSame("*1\r\n\$4\r\nPING\r\n", RespEncoder::encode(['PING']));
    }

    public function testArgumentsAreBinarySafe(): void
    {
        $value = "line1\r\nline2\0\xff\r\n*2\r\n";

        self::assertSame(
            "*3\r\n\$3\r\nSET\r\n\$6\r\nk\r\n\0\r\n\r\n\$" . strlen($value) . "\r\n" . $value . "\r\n",
            RespEncoder::encode(['SET', "k\r\n\0\r\n", $value]),
        );
    }

    public function testEmptyStringArgument(): void
    {
        self::assertSame("*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$0\r\n\r\n", RespEncoder::encode(['SET', 'k', '']));
    }

    public function testLengthsCountBytesNotCharacters(): void
    {
        self::assertSame("*2\r\n\$4\r\nECHO\r\n\$6\r\nh\u{e9}\u{e9}h\r\n", RespEncoder::encode(['ECHO', "h\u{e9}\u{e9}h"]));
    }

    public function testIntegersAndStringables(): void
    {
        $stringable = new class () implements \Stringable {
            public function __toString(): string
            {
                return 'from-object';
            }
        };

        self::assertSame(
            "*4\r\n\$6\r\nEXPIRE\r\n\$11\r\nfrom-object\r\n\$2\r\n-5\r\n\$19\r\n9223372036854775807\r\n",
            RespEncoder::encode(['EXPIRE', $stringable, -5, PHP_INT_MAX]),
        );
    }

    /** @return iterable<string, array{float, string}> */
    public static function floats(): iterable
    {
        yield 'one decimal' => [1.5, '1.5'];
        yield 'shortest repr' => [0.1, '0.1'];
        yield 'needs 17 digits' => [0.1 + 0.2, '0.30000000000000004'];
        yield 'integral' => [3.0, '3'];
        yield 'negative integral' => [-42.0, '-42'];
        yield 'zero' => [0.0, '0'];
        yield 'large integral below 2^53' => [9007199254740991.0, '9007199254740991'];
        yield 'large' => [1e25, '1.0e+25'];
        yield 'small' => [1.5e-7, '1.5e-7'];
        yield 'max' => [PHP_FLOAT_MAX, '1.7976931348623157e+308'];
        yield 'inf' => [INF, 'inf'];
        yield '-inf' => [-INF, '-inf'];
        yield 'nan' => [NAN, 'nan'];
    }

    #[DataProvider('floats')]
    public function testFloatsAreFormattedForRedis(float $value, string $text): void
    {
        self::assertSame($text, RespEncoder::formatFloat($value));
        self::assertSame("*2\r\n\$4\r\nECHO\r\n\$" . strlen($text) . "\r\n$text\r\n", RespEncoder::encode(['ECHO', $value]));
    }

    public function testFloatsRoundTripAndUseOnlyCharactersRedisParses(): void
    {
        $random = new Randomizer(new Mt19937(2024));
        for ($i = 0; $i < 20_000; $i++) {
            $value = (unpack('e', $random->getBytes(8)) ?: [1 => NAN])[1];
            if (!is_float($value) || is_nan($value) || is_infinite($value)) {
                continue;
            }
            $text = RespEncoder::formatFloat($value);
            self::assertSame($value, (float) $text, $text);
            self::assertMatchesRegularExpression('/^-?[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?$/D', $text);
        }
    }

    public function testFloatsIgnoreTheLocale(): void
    {
        $previous = setlocale(LC_ALL, '0');
        if (setlocale(LC_ALL, 'de_DE.UTF-8', 'de_DE', 'fr_FR.UTF-8', 'fr_FR', 'nl_NL.UTF-8') === false) {
            self::skipUnlessRequired('no locale with a decimal comma is installed (.ci/run makes de_DE.UTF-8 with localedef)');
        }
        try {
            self::assertSame('1.5', RespEncoder::formatFloat(1.5));
            self::assertSame('1.5e-7', RespEncoder::formatFloat(1.5e-7));
        } finally {
            setlocale(LC_ALL, $previous === false ? 'C' : $previous);
        }
    }

    /** @return iterable<string, array{mixed, string}> */
    public static function badArguments(): iterable
    {
        yield 'true' => [true, 'bool given'];
        yield 'false' => [false, 'bool given'];
        yield 'null' => [null, 'null given'];
        yield 'array' => [['a'], 'array given'];
        yield 'object' => [new \stdClass(), 'stdClass given'];
    }

    #[DataProvider('badArguments')]
    public function testRefusesArgumentsWithoutASingleTextForm(mixed $argument, string $given): void
    {
        $this->expectException(\TypeError::class);
        $this->expectExceptionMessage("Redis command argument at index 2 of SET must be string|int|float|Stringable, $given");

        RespEncoder::encode(['SET', 'key', $argument]);
    }

    public function testRefusesAnInvalidCommandName(): void
    {
        $this->expectException(\TypeError::class);
        $this->expectExceptionMessage('Redis command argument at index 0 must be string|int|float|Stringable, null given');

        RespEncoder::encode([null, 'key']); // @phpstan-ignore argument.type
    }

    public function testRefusesAnEmptyCommand(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('a Redis command needs at least a name');

        RespEncoder::encode([]);
    }

    public function testEncodeManyConcatenatesCommands(): void
    {
        self::assertSame(
            RespEncoder::encode(['MULTI']) . RespEncoder::encode(['INCR', 'n']) . RespEncoder::encode(['EXEC']),
            RespEncoder::encodeMany([['MULTI'], ['INCR', 'n'], ['EXEC']]),
        );
        self::assertSame('', RespEncoder::encodeMany([]));
    }

    public function testEncodeManyNamesTheFaultyCommand(): void
    {
        $this->expectException(\TypeError::class);
        $this->expectExceptionMessage('Pipeline command 1: Redis command argument at index 1 of GET must be string|int|float|Stringable, bool given');

        RespEncoder::encodeMany([['SET', 'k', 'v'], ['GET', false]]); // @phpstan-ignore argument.type
    }

    public function testEncodedCommandsParseBackAsArraysOfStrings(): void
    {
        $commands = [['SET', "a\r\nb", "\0"], ['INCRBYFLOAT', 'n', 0.1], ['EXPIRE', 'k', 10], ['ECHO', '']];
        $parser = new RespParser();
        $parser->feed(RespEncoder::encodeMany($commands));

        foreach ($commands as $command) {
            self::assertSame(array_map(static fn (mixed $arg): string => (string) $arg, $command), $parser->next());
        }
        self::assertFalse($parser->hasNext());
    }
}
