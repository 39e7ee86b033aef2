<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\ColumnType as T;
use Petrel\Database\Mysql\Internal\MetadataCache;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\Internal\ResultEvent;
use Petrel\Database\Mysql\Internal\ServerStatus;
use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(ResultDecoder::class)]
#[CoversClass(MetadataCache::class)]
final class MultiResultTest extends TestCase
{
    private const MORE = ServerStatus::AUTOCOMMIT | ServerStatus::MORE_RESULTS_EXISTS;

    /** @return iterable<string, array{bool, bool}> */
    public static function modes(): iterable
    {
        return TextResultTest::modes();
    }

    private static function caps(bool $deprecateEof): int
    {
        return Capability::PROTOCOL_41 | ($deprecateEof ? Capability::DEPRECATE_EOF : 0);
    }

    /**
     * Payloads of one result set (unframed).
     *
     * @param list<list<string|null>> $rows
     * @return list<string>
     */
    private static function set(string $column, array $rows, bool $deprecateEof, int $status): array
    {
        $payloads = ["\x01", Wire::column($column, T::LONG)];
        if (!$deprecateEof) {
            $payloads[] = Wire::eof();
        }
        foreach ($rows as $row) {
            $payloads[] = Wire::textRow($row);
        }
        $payloads[] = $deprecateEof ? Wire::ok(status: $status, header: "\xFE") : Wire::eof($status);

        return $payloads;
    }

    #[DataProvider('modes')]
    public function testMultiStatementResults(bool $deprecateEof, bool $byteByByte): void
    {
        // select 1 as a; update ...; select 2 as b union select 3
        $payloads = [
            ...self::set('a', [['1']], $deprecateEof, self::MORE),
            Wire::ok(3, 0, self::MORE),
            ...self::set('b', [['2'], ['3']], $deprecateEof, ServerStatus::AUTOCOMMIT),
        ];
        $trace = Wire::decodeAll(Wire::packets($payloads), self::caps($deprecateEof), false, $byteByByte);
        self::assertSame([
            ['columns', ['a']],
            ['row', ['a' => 1]],
            ['end', self::MORE, 0],
            ['ok', 3, 0, ''],
            ['columns', ['b']],
            ['row', ['b' => 2]],
            ['row', ['b' => 3]],
            ['end', ServerStatus::AUTOCOMMIT, 0],
            ['complete', true, 0],
        ], $trace);
    }

    #[DataProvider('modes')]
    public function testStoredProcedureCallEndsWithAnOk(bool $deprecateEof, bool $byteByByte): void
    {
        $payloads = [
            ...self::set('x', [['1']], $deprecateEof, self::MORE),
            ...self::set('y', [], $deprecateEof, self::MORE | ServerStatus::PS_OUT_PARAMS),
            Wire::ok(0, 0, ServerStatus::AUTOCOMMIT),
        ];
        $trace = Wire::decodeAll(Wire::packets($payloads), self::caps($deprecateEof), false, $byteByByte);
        self::assertSame([
            ['columns', ['x']],
            ['row', ['x' => 1]],
            ['end', self::MORE, 0],
            ['columns', ['y']],
            ['end', self::MORE | ServerStatus::PS_OUT_PARAMS, 0],
            ['ok', 0, 0, ''],
            ['complete', true, 0],
        ], $trace);
    }

    #[DataProvider('modes')]
    public function testErrorEndsTheResponse(bool $deprecateEof, bool $byteByByte): void
    {
        $payloads = [
            ...self::set('a', [['1']], $deprecateEof, self::MORE),
            Wire::err(1146, '42S02', "Table 't.nope' doesn't exist"),
        ];
        $trace = Wire::decodeAll(Wire::packets($payloads), self::caps($deprecateEof), false, $byteByByte);
        self::assertSame(['error', 1146, '42S02', "Table 't.nope' doesn't exist"], $trace[3]);
        self::assertSame(['complete', true, 0], $trace[4]);
    }

    public function testErrorInTheMiddleOfRows(): void
    {
        $payloads = [
            "\x01",
            Wire::column('n', T::LONG),
            Wire::textRow(['1']),
            Wire::err(1317, '70100', 'Query execution was interrupted'),
        ];
        $trace = Wire::decodeAll(Wire::packets($payloads), self::caps(true));
        self::assertSame(['error', 1317, '70100', 'Query execution was interrupted'], $trace[2]);
        self::assertSame(['complete', true, 0], $trace[3]);
    }

    public function testOkWithoutResultSet(): void
    {
        $info = 'Rows matched: 3  Changed: 3  Warnings: 0';
        $ok = "\x00\x03\x00\x02\x00\x00\x00" . Wire::str($info);
        self::assertSame([['ok', 3, 0, $info], ['complete', true, 0]], Wire::decodeAll(Wire::packets([$ok]), self::caps(true)));
        self::assertSame([['ok', 1, 42, '']], \array_slice(Wire::decodeAll(Wire::packets([Wire::ok(1, 42)]), self::caps(false)), 0, 1));
    }

    public function testLocalInfileRequestIsRefused(): void
    {
        $decoder = new ResultDecoder(self::caps(true));
        self::assertSame(ResultEvent::LocalInfileRequest, $decoder->push("\xFB/etc/passwd"));
        self::assertSame('/etc/passwd', $decoder->localInfileName());
        self::assertFalse($decoder->isComplete(), 'the connection sends an empty packet, then keeps reading');
        self::assertSame(ResultEvent::Error, $decoder->push(Wire::ok()));
        self::assertTrue($decoder->isComplete());
        self::assertSame(MysqlException::CLIENT_LOCAL_INFILE_REJECTED, $decoder->error()->code);
        self::assertStringContainsString('/etc/passwd', $decoder->error()->toException()->getMessage());

        $decoder = new ResultDecoder(self::caps(true));
        $decoder->push("\xFBdata.csv");
        self::assertSame(ResultEvent::Error, $decoder->push(Wire::err(2, 'HY000', 'File not found')));
        self::assertSame(2, $decoder->error()->code);
    }

    public function testMetadataCacheReusesColumnsAndRowDecoder(): void
    {
        $cache = new MetadataCache(capacity: 2);
        $bytes = Wire::packets(self::set('a', [['7']], true, ServerStatus::AUTOCOMMIT));
        $first = Wire::decodeAll($bytes, self::caps(true), false, false, $cache);
        self::assertSame(1, $cache->count());
        self::assertSame($first, Wire::decodeAll($bytes, self::caps(true), false, true, $cache));
        self::assertSame(1, $cache->count());

        // Same bytes in binary mode are another entry; a third shape evicts the oldest.
        $binary = Wire::packets(["\x01", Wire::column('a', T::LONG), "\x00\x00\x07\x00\x00\x00", Wire::ok(header: "\xFE")]);
        Wire::decodeAll($binary, self::caps(true), true, false, $cache);
        self::assertSame(2, $cache->count());
        $other = Wire::packets(self::set('other', [['1']], true, ServerStatus::AUTOCOMMIT));
        Wire::decodeAll($other, self::caps(true), false, false, $cache);
        self::assertSame(2, $cache->count());

        $decoder1 = new ResultDecoder(self::caps(true), false, $cache);
        $decoder2 = new ResultDecoder(self::caps(true), false, $cache);
        foreach ([$decoder1, $decoder2] as $decoder) {
            $decoder->push("\x01");
            $decoder->push(Wire::column('other', T::LONG));
        }
        self::assertSame($decoder1->columns(), $decoder2->columns(), 'the very same ColumnDefinition objects');
        $cache->clear();
        self::assertSame(0, $cache->count());
    }

    public function testMalformedResultSetHeader(): void
    {
        $this->expectException(ProtocolException::class);
        (new ResultDecoder(self::caps(true)))->push("\x00"); // an OK packet cannot be this short
    }

    public function testMissingEofAfterColumnsIsAProtocolError(): void
    {
        $decoder = new ResultDecoder(self::caps(false));
        $decoder->push("\x01");
        $decoder->push(Wire::column('a', T::LONG));
        $this->expectException(ProtocolException::class);
        $decoder->push(Wire::textRow(['1']));
    }

    public function testDrainNeedsAPositiveLimit(): void
    {
        $rows = [];
        $this->expectException(\ValueError::class);
        (new ResultDecoder(self::caps(true)))->drain(new \Petrel\Database\Mysql\Internal\PacketFramer(), $rows, 0);
    }

    public function testPushAfterCompletionIsAnError(): void
    {
        $decoder = new ResultDecoder(self::caps(true));
        $decoder->push(Wire::ok());
        $this->expectException(\Error::class);
        $decoder->push(Wire::ok());
    }
}
