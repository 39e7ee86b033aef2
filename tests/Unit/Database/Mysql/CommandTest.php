<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\Command;
use Petrel\Database\Mysql\Internal\ExecuteEncoder;
use Petrel\Database\Mysql\Internal\PacketFramer;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(Command::class)]
#[CoversClass(ExecuteEncoder::class)]
final class CommandTest extends TestCase
{
    public function testSimpleCommands(): void
    {
        self::assertSame("\x03SELECT 1", Command::query('SELECT 1'));
        self::assertSame("\x0E", Command::ping());
        self::assertSame("\x01", Command::quit());
        self::assertSame("\x02app", Command::initDb('app'));
        self::assertSame("\x1F", Command::resetConnection());
        self::assertSame("\x16SELECT ?", Command::stmtPrepare('SELECT ?'));
        self::assertSame("\x19\x2A\x00\x00\x00", Command::stmtClose(42));
        self::assertSame("\x1A\x01\x01\x00\x00", Command::stmtReset(257));
    }

    public function testCommandsStartAtSequenceZero(): void
    {
        $framer = new PacketFramer();
        $framer->feed(Wire::packets(['greeting', 'ok'], 0));
        $framer->next();
        $framer->next();
        $framer->resetSequence();
        self::assertSame("\x01\x00\x00\x00\x0E", $framer->packet(Command::ping()));
    }

    public function testExecuteWithoutParameters(): void
    {
        self::assertSame("\x17\x07\x00\x00\x00\x00\x01\x00\x00\x00", Command::stmtExecute(7));
    }

    public function testExecuteWithMixedParameters(): void
    {
        $payload = Command::stmtExecute(1, [42, 'héllo', null, 1.5, true, false, -1, '']);
        $expected = "\x17" . "\x01\x00\x00\x00" . "\x00" . "\x01\x00\x00\x00"
            . "\x04"                 // NULL bitmap: parameter 2 (bit 2)
            . "\x01"                 // new-params-bound
            . "\x08\x00" . "\xFD\x00" . "\x06\x00" . "\x05\x00" . "\x01\x00" . "\x01\x00" . "\x08\x00" . "\xFD\x00"
            . "\x2A\x00\x00\x00\x00\x00\x00\x00"                // 42 as LONGLONG
            . "\x06h\xC3\xA9llo"                                 // length-encoded string
            . "\x00\x00\x00\x00\x00\x00\xF8\x3F"                // 1.5 as DOUBLE
            . "\x01" . "\x00"                                    // TINY true, false
            . "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF"                // -1
            . "\x00";                                            // empty string
        self::assertSame(bin2hex($expected), bin2hex($payload));
    }

    public function testNullBitmapSpansBytes(): void
    {
        $params = array_fill(0, 10, 1);
        $params[0] = null;
        $params[7] = null;
        $params[8] = null;
        $payload = Command::stmtExecute(5, $params);
        self::assertSame("\x81\x01", substr($payload, 10, 2), 'bits 0 and 7 of byte 0, bit 0 of byte 1');
        self::assertSame("\x01", $payload[12]);
        self::assertSame("\x06\x00" . str_repeat("\x08\x00", 6) . "\x06\x00\x06\x00\x08\x00", substr($payload, 13, 20));
        self::assertSame(33 + 7 * 8, \strlen($payload));
    }

    public function testObjectsAndEnums(): void
    {
        $stringable = new class () implements \Stringable {
            public function __toString(): string
            {
                return 'str';
            }
        };
        $payload = Command::stmtExecute(1, [
            $stringable,
            new \DateTimeImmutable('2024-02-29 13:14:15'),
            new \DateTimeImmutable('2024-02-29 13:14:15.250000'),
            StringEnumFixture::Hearts,
            IntEnumFixture::High,
        ]);
        $types = substr($payload, 12, 10);
        self::assertSame("\xFD\x00\xFD\x00\xFD\x00\xFD\x00\x08\x00", $types);
        self::assertSame(
            "\x03str" . "\x132024-02-29 13:14:15" . "\x1A2024-02-29 13:14:15.250000" . "\x01H" . pack('P', 3),
            substr($payload, 22),
        );
    }

    public function testLongStringParameterUsesWideLength(): void
    {
        $long = str_repeat('x', 70000);
        $payload = Command::stmtExecute(1, [$long]);
        self::assertSame("\xFD\x70\x11\x01" . $long, substr($payload, 14));
    }

    public function testUnsupportedValueIsATypeError(): void
    {
        $this->expectException(\TypeError::class);
        $this->expectExceptionMessage('array');
        Command::stmtExecute(1, [1, []]);
    }

    /** The server has neither: bound as a DOUBLE it stores PHP_INT_MIN in a BIGINT, 0.00 in a DECIMAL, without an error. */
    public function testNanAndInfinityAreRefusedBeforeAnythingIsSent(): void
    {
        foreach ([[\NAN, 'NAN'], [\INF, 'INF'], [-\INF, '-INF']] as [$value, $shown]) {
            try {
                Command::stmtExecute(1, [1.5, $value]);
                self::fail("{$shown} must be refused");
            } catch (\ValueError $e) {
                self::assertStringStartsWith("Cannot bind {$shown} to prepared statement parameter 2: MySQL and MariaDB have no NaN or infinity", $e->getMessage());
            }
        }
        self::assertSame(\pack('e', -0.0), \substr(Command::stmtExecute(1, [-0.0]), -8), 'finite floats, -0.0 too, are bound as ever');
    }

    public function testNamedParametersAreRejected(): void
    {
        $this->expectException(\ValueError::class);
        /** @phpstan-ignore argument.type (deliberate misuse) */
        Command::stmtExecute(1, ['a' => 1]);
    }
}
