<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\ColumnType as T;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\Internal\PrepareOk;
use Petrel\Database\Mysql\Internal\PrepareResponseDecoder;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(PrepareResponseDecoder::class)]
#[CoversClass(PrepareOk::class)]
final class PrepareResponseTest extends TestCase
{
    private static function prepare(string $bytes, bool $deprecateEof, bool $byteByByte = false): PrepareResponseDecoder
    {
        $framer = new PacketFramer();
        $framer->packet("\x16"); // COM_STMT_PREPARE went out with sequence id 0
        $decoder = new PrepareResponseDecoder(Capability::PROTOCOL_41 | ($deprecateEof ? Capability::DEPRECATE_EOF : 0));
        foreach (Wire::chunks($bytes, $byteByByte) as $chunk) {
            $framer->feed($chunk);
            while (($payload = $framer->next()) !== null) {
                self::assertFalse($decoder->isComplete(), 'no packet after completion');
                $decoder->push($payload);
            }
        }
        self::assertTrue($decoder->isComplete());
        self::assertSame(0, $framer->bufferedLength());

        return $decoder;
    }

    private static function prepareOk(int $id, int $columns, int $params, int $warnings = 0): string
    {
        return "\x00" . pack('VvvCv', $id, $columns, $params, 0, $warnings);
    }

    /** @return iterable<string, array{string, bool, int}> */
    public static function captures(): iterable
    {
        yield 'MariaDB 10.11, DEPRECATE_EOF' => [MariaDbCapture::PREPARE_DEPRECATE_EOF, true, 4];
        yield 'MariaDB 10.11, EOF packets' => [MariaDbCapture::PREPARE_WITH_EOF, false, 1];
    }

    #[DataProvider('captures')]
    public function testCapturedMariaDbPrepare(string $hex, bool $deprecateEof, int $statementId): void
    {
        foreach ([false, true] as $byteByByte) {
            $result = self::prepare((string) hex2bin($hex), $deprecateEof, $byteByByte)->result();
            self::assertNotNull($result);
            self::assertSame($statementId, $result->statementId);
            self::assertSame(1, $result->paramCount);
            self::assertSame(5, $result->columnCount);
            self::assertSame(0, $result->warnings);
            self::assertCount(1, $result->params);
            self::assertSame(T::NULL, $result->params[0]->type, 'MariaDB types parameters as NULL');
            self::assertSame(['id', 'ubi', 'vc', 'dtm3', 'f'], array_map(static fn ($c) => $c->name, $result->columns));
            self::assertSame(
                [T::LONG, T::LONGLONG, T::VAR_STRING, T::DATETIME, T::FLOAT],
                array_map(static fn ($c) => $c->type, $result->columns),
            );
            self::assertTrue($result->columns[1]->isUnsigned());
            self::assertSame(3, $result->columns[3]->decimals);
        }
    }

    /** @return iterable<string, array{bool}> */
    public static function eofModes(): iterable
    {
        yield 'DEPRECATE_EOF' => [true];
        yield 'EOF packets' => [false];
    }

    #[DataProvider('eofModes')]
    public function testStatementWithoutParamsOrColumns(bool $deprecateEof): void
    {
        $result = self::prepare(Wire::packets([self::prepareOk(9, 0, 0, 1)]), $deprecateEof)->result();
        self::assertEquals(new PrepareOk(9, 0, 0, 1), $result);
    }

    #[DataProvider('eofModes')]
    public function testParamsOnly(bool $deprecateEof): void
    {
        $payloads = [self::prepareOk(2, 0, 2), Wire::column('?', T::VAR_STRING), Wire::column('?', T::LONGLONG)];
        if (!$deprecateEof) {
            $payloads[] = Wire::eof();
        }
        $result = self::prepare(Wire::packets($payloads), $deprecateEof, true)->result();
        self::assertNotNull($result);
        self::assertCount(2, $result->params);
        self::assertSame([], $result->columns);
    }

    #[DataProvider('eofModes')]
    public function testColumnsOnly(bool $deprecateEof): void
    {
        $payloads = [self::prepareOk(3, 1, 0), Wire::column('now', T::DATETIME)];
        if (!$deprecateEof) {
            $payloads[] = Wire::eof();
        }
        $result = self::prepare(Wire::packets($payloads), $deprecateEof)->result();
        self::assertNotNull($result);
        self::assertSame([], $result->params);
        self::assertSame('now', $result->columns[0]->name);
    }

    public function testError(): void
    {
        $decoder = self::prepare(Wire::packets([Wire::err(1064, '42000', 'You have an error in your SQL syntax')]), true);
        self::assertNull($decoder->result());
        self::assertNotNull($decoder->error());
        self::assertSame(1064, $decoder->error()->code);
        self::assertSame('42000', $decoder->error()->sqlState);
    }

    public function testMalformedResponse(): void
    {
        $this->expectException(ProtocolException::class);
        (new PrepareResponseDecoder(Capability::PROTOCOL_41))->push("\x00\x01");
    }

    public function testMissingEof(): void
    {
        $decoder = new PrepareResponseDecoder(Capability::PROTOCOL_41);
        $decoder->push(self::prepareOk(1, 1, 1));
        $decoder->push(Wire::column('?', T::NULL));
        $this->expectException(ProtocolException::class);
        $decoder->push(Wire::column('x', T::LONG));
    }

    public function testResultBeforeCompletionIsAnError(): void
    {
        $this->expectException(\Error::class);
        (new PrepareResponseDecoder(Capability::PROTOCOL_41))->result();
    }
}
