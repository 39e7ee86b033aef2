<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\PayloadReader;
use Petrel\Database\Mysql\Internal\PayloadWriter;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(PayloadReader::class)]
#[CoversClass(PayloadWriter::class)]
final class PayloadTest extends TestCase
{
    /** @return iterable<string, array{int, string}> */
    public static function lenencIntegers(): iterable
    {
        yield '0' => [0, "\x00"];
        yield '250, the largest one-byte value' => [250, "\xFA"];
        yield '251 needs 0xFC' => [251, "\xFC\xFB\x00"];
        yield '0xFFFF' => [0xFFFF, "\xFC\xFF\xFF"];
        yield '0x10000 needs 0xFD' => [0x10000, "\xFD\x00\x00\x01"];
        yield '0xFFFFFF' => [0xFFFFFF, "\xFD\xFF\xFF\xFF"];
        yield '0x1000000 needs 0xFE' => [0x1000000, "\xFE\x00\x00\x00\x01\x00\x00\x00\x00"];
        yield 'PHP_INT_MAX' => [PHP_INT_MAX, "\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x7F"];
    }

    #[DataProvider('lenencIntegers')]
    public function testLengthEncodedIntegers(int $value, string $bytes): void
    {
        self::assertSame($bytes, PayloadWriter::lenencInt($value));
        self::assertSame($bytes, Wire::lenencInt($value));
        $reader = new PayloadReader($bytes . 'tail');
        self::assertSame($value, $reader->lenencInt());
        self::assertSame('tail', $reader->rest());
    }

    public function testNullMarkerAndUnsignedOverflow(): void
    {
        $reader = new PayloadReader("\xFB\xFB\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF");
        self::assertNull($reader->lenencInt());
        self::assertNull($reader->lenencString());
        self::assertSame('18446744073709551615', $reader->lenencUnsigned());
        self::assertSame(0, $reader->remaining());
    }

    public function testFixedIntegersAreLittleEndian(): void
    {
        $reader = new PayloadReader("\x01\x02\x01\x03\x02\x01\x04\x03\x02\x01\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF");
        self::assertSame(1, $reader->int1());
        self::assertSame(0x0102, $reader->int2());
        self::assertSame(0x010203, $reader->int3());
        self::assertSame(0x01020304, $reader->int4());
        self::assertSame(-1, $reader->int8());
        self::assertSame("\x34\x12", PayloadWriter::int2(0x1234));
        self::assertSame("\x56\x34\x12", PayloadWriter::int3(0x123456));
        self::assertSame("\x78\x56\x34\x12", PayloadWriter::int4(0x12345678));
        self::assertSame("\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", PayloadWriter::int8(-1));
    }

    public function testStrings(): void
    {
        $long = str_repeat('x', 300);
        $reader = new PayloadReader("root\0" . PayloadWriter::lenencString($long) . "\x03abcrest\0of it");
        self::assertSame('root', $reader->nulString());
        self::assertSame($long, $reader->lenencString());
        self::assertSame('abc', $reader->lenencString());
        self::assertSame('rest', $reader->nulStringOrRest());
        self::assertSame('of it', $reader->nulStringOrRest());
        self::assertSame("\x00", PayloadWriter::lenencString(''));
        self::assertSame("db\0", PayloadWriter::nulString('db'));
    }

    public function testTruncationIsAProtocolError(): void
    {
        $this->expectException(ProtocolException::class);
        (new PayloadReader("\x05abc"))->lenencString();
    }

    public function testUnterminatedStringIsAProtocolError(): void
    {
        $this->expectException(ProtocolException::class);
        (new PayloadReader('abc'))->nulString();
    }

    public function testInvalidLenencPrefixIsAProtocolError(): void
    {
        $this->expectException(ProtocolException::class);
        (new PayloadReader("\xFF"))->lenencInt();
    }

    public function testWriterRejectsMisuse(): void
    {
        $this->expectException(\ValueError::class);
        PayloadWriter::nulString("a\0b");
    }
}
