<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;

/**
 * Incremental decoder of the response to COM_QUERY (text rows) or COM_STMT_EXECUTE (binary
 * rows): push each packet payload in order, act on the returned event, stop when
 * isComplete(). push() holds one row at a time, so a large result can be streamed; drain()
 * is the faster way to buffer rows, taking packets straight from the PacketFramer.
 *
 * Response grammar, repeated while a terminating OK/EOF has SERVER_MORE_RESULTS_EXISTS:
 *   OK | ERR | 0xFB local-infile request
 *   | column count, column definitions, [EOF], rows, (EOF | OK with 0xFE header) | ERR
 * The EOF after the column definitions is absent, and the terminating EOF replaced by an OK
 * packet, when CLIENT_DEPRECATE_EOF was negotiated.
 */
final class ResultDecoder
{
    private const FIRST = 0;
    private const COLUMNS = 1;
    private const COLUMNS_EOF = 2;
    private const ROWS = 3;
    private const AFTER_INFILE = 4;
    private const COMPLETE = 5;

    private readonly bool $deprecateEof;
    private int $state = self::FIRST;
    private int $columnCount = 0;
    /** @var list<string> column definition packets of the result set being read */
    private array $rawColumns = [];
    /** The protocol, then the definitions as whole packets: the MetadataCache key. */
    private string $columnsKey = '';
    /** @var list<ColumnDefinition> */
    private array $columns = [];
    private ?RowDecoder $rowDecoder = null;
    /** @var array<string, mixed> */
    private array $row = [];
    private ?OkPacket $ok = null;
    private ?ErrPacket $error = null;
    private string $infileName = '';

    /**
     * @param int            $capabilities the capability flags negotiated in the handshake
     * @param bool           $binary       rows use the binary protocol (COM_STMT_EXECUTE)
     * @param ?MetadataCache $cache        the connection's cache of column metadata
     */
    public function __construct(
        private readonly int $capabilities,
        private readonly bool $binary = false,
        private readonly ?MetadataCache $cache = null,
    ) {
        $this->deprecateEof = ($capabilities & Capability::DEPRECATE_EOF) !== 0;
    }

    /** @throws ProtocolException when the packet does not fit the response grammar */
    public function push(string $payload): ResultEvent
    {
        // Rows first: they are the hot path.
        if ($this->state === self::ROWS) {
            $first = $payload === '' ? -1 : \ord($payload[0]);
            if ($first === 0xFE && Packet::isEnd($payload, $this->deprecateEof)) {
                $this->ok = $this->deprecateEof
                    ? OkPacket::parse($payload, $this->capabilities)
                    : OkPacket::parseEof($payload);
                $this->state = $this->ok->hasMoreResults() ? self::FIRST : self::COMPLETE;
                $this->rowDecoder = null;

                return ResultEvent::ResultSetEnd;
            }
            if ($first === 0xFF) {
                return $this->fail(ErrPacket::parse($payload));
            }
            \assert($this->rowDecoder !== null);
            $this->row = $this->rowDecoder->decode($payload);

            return ResultEvent::Row;
        }

        return match ($this->state) {
            self::FIRST => $this->first($payload),
            self::COLUMNS => $this->column($payload),
            self::COLUMNS_EOF => $this->columnsEof($payload),
            self::AFTER_INFILE => $this->afterInfile($payload),
            default => throw new \Error('ResultDecoder::push() called after the response completed'),
        };
    }

    /**
     * Batch form of push() for buffering rows: takes packets from $framer, appending decoded
     * rows to $rows, until a packet yields an event other than Row (returned; rows appended
     * before a ResultSetEnd belong to the set that ended), $limit rows have been appended in
     * this call (returns Row), or the framer holds no complete packet (returns null: feed it
     * more bytes and call again). Pending events are consumed silently.
     *
     * @param list<array<string, mixed>> $rows
     *
     * @throws ProtocolException
     */
    public function drain(PacketFramer $framer, array &$rows, int $limit = PHP_INT_MAX): ?ResultEvent
    {
        if ($limit < 1) {
            throw new \ValueError('drain() needs a limit of at least one row');
        }
        $taken = 0;
        while (true) {
            if ($this->state === self::ROWS && $this->rowDecoder !== null) {
                // Hot loop: the framer hands rows to the row decoder in place, and stops at
                // anything else (an end, an error, a partial packet) for next() and push().
                $decoder = $this->rowDecoder;
                while ($taken < $limit) {
                    $taken += $framer->rows($decoder, $rows, $limit - $taken);
                    if ($taken >= $limit) {
                        break;
                    }
                    $payload = $framer->next();
                    if ($payload === null) {
                        return null;
                    }
                    if ($payload === '' || $payload[0] === "\xFE" || $payload[0] === "\xFF") {
                        $event = $this->push($payload);
                        if ($event !== ResultEvent::Row) {
                            return $event;
                        }
                        $rows[] = $this->row;
                    } else {
                        $rows[] = $decoder->decode($payload);
                    }
                    ++$taken;
                }

                return ResultEvent::Row;
            }
            if ($this->state === self::COLUMNS && $this->rawColumns === []) {
                $event = $this->columnSpan($framer); // null: not all there yet, or something unusual
                if ($event === ResultEvent::Pending) {
                    continue;
                }
                if ($event !== null) {
                    return $event;
                }
            }
            $payload = $framer->next();
            if ($payload === null) {
                return null;
            }
            $event = $this->push($payload);
            if ($event !== ResultEvent::Pending) {
                return $event;
            }
        }
    }

    /**
     * Like drain(), but throws the rows away undecoded: for a connection skipping the rest of
     * a response nobody wants any more (an abandoned stream, the extra result sets of a CALL).
     * Returns the first event other than Row, or null when the framer needs more bytes.
     *
     * @throws ProtocolException
     */
    public function skip(PacketFramer $framer): ?ResultEvent
    {
        while (true) {
            $payload = $framer->next();
            if ($payload === null) {
                return null;
            }
            if ($this->state === self::ROWS && $payload !== '' && $payload[0] !== "\xFE" && $payload[0] !== "\xFF") {
                continue; // a row: its first byte can be neither an end nor an error marker
            }
            $event = $this->push($payload);
            if ($event !== ResultEvent::Pending && $event !== ResultEvent::Row) {
                return $event;
            }
        }
    }

    /**
     * Makes the decoder ready for the next response on the same connection, so a connection
     * keeps one decoder per protocol instead of allocating one per command.
     */
    public function reset(): void
    {
        $this->state = self::FIRST;
        $this->rowDecoder = null;
        $this->row = [];
        $this->ok = null;
        $this->error = null;
    }

    /** The response is fully read; the connection can take the next command. */
    public function isComplete(): bool
    {
        return $this->state === self::COMPLETE;
    }

    /** @return list<ColumnDefinition> the columns of the current result set */
    public function columns(): array
    {
        return $this->columns;
    }

    /** @return array<string, mixed> the row of the last Row event */
    public function row(): array
    {
        return $this->row;
    }

    /** The OK (or EOF, as an OkPacket) of the last Ok or ResultSetEnd event. */
    public function ok(): OkPacket
    {
        return $this->ok ?? throw new \Error('No OK packet has been decoded');
    }

    public function error(): ErrPacket
    {
        return $this->error ?? throw new \Error('No error has been decoded');
    }

    /** The file name of the last LocalInfileRequest event. */
    public function localInfileName(): string
    {
        return $this->infileName;
    }

    private function first(string $payload): ResultEvent
    {
        if ($payload === '') {
            throw new ProtocolException('Empty response packet');
        }
        $header = \ord($payload[0]);
        if ($header === Packet::OK) {
            return $this->okPacket($payload);
        }
        if ($header === Packet::ERR) {
            return $this->fail(ErrPacket::parse($payload));
        }
        if ($header === Packet::LOCAL_INFILE) {
            $this->infileName = substr($payload, 1);
            $this->state = self::AFTER_INFILE;

            return ResultEvent::LocalInfileRequest;
        }
        if ($header < 0xFB && \strlen($payload) === 1) {
            $count = $header; // the usual case: fewer than 251 columns
        } else {
            $reader = new PayloadReader($payload);
            $count = $reader->lenencInt();
            if ($count === null || $count < 1 || $reader->remaining() !== 0) {
                throw new ProtocolException('Malformed result set header');
            }
        }
        $this->columnCount = $count;
        $this->rawColumns = [];
        $this->columnsKey = $this->binary ? 'b' : 't';
        $this->state = self::COLUMNS;

        return ResultEvent::Pending;
    }

    private function column(string $payload): ResultEvent
    {
        if ($payload === '' || $payload[0] === "\xFF") {
            return $this->fail(ErrPacket::parse($payload));
        }
        $this->rawColumns[] = $payload;
        // The key is what packets() would give for them in a first result set (ids from 2).
        $this->columnsKey .= PacketFramer::frame($payload, \count($this->rawColumns) + 1);
        if (\count($this->rawColumns) < $this->columnCount) {
            return ResultEvent::Pending;
        }
        $this->resolveColumns($this->rawColumns);

        return $this->columnsRead();
    }

    /**
     * All the column definitions in one piece, when all have arrived (drain()'s way: one
     * cache lookup, no packet handled one by one); null, taking nothing, when the framer
     * cannot give them so (PacketFramer::packets()).
     */
    private function columnSpan(PacketFramer $framer): ?ResultEvent
    {
        $span = $framer->packets($this->columnCount);
        if ($span === null) {
            return null;
        }
        $this->columnsKey = ($this->binary ? 'b' : 't') . $span;
        $this->resolveColumns(null, $span);

        return $this->columnsRead();
    }

    private function columnsRead(): ResultEvent
    {
        if (!$this->deprecateEof) {
            $this->state = self::COLUMNS_EOF;

            return ResultEvent::Pending;
        }

        return $this->beginRows();
    }

    private function columnsEof(string $payload): ResultEvent
    {
        if (Packet::isErr($payload)) {
            return $this->fail(ErrPacket::parse($payload));
        }
        if (!Packet::isEnd($payload, false)) {
            throw new ProtocolException('Expected an EOF packet after the column definitions');
        }

        return $this->beginRows();
    }

    /**
     * Parses the column definitions (the payloads, or the span of whole packets) and builds
     * the row decoder, or takes both from the cache.
     *
     * @param list<string>|null $payloads
     */
    private function resolveColumns(?array $payloads, string $span = ''): void
    {
        $cached = $this->cache?->get($this->columnsKey);
        if ($cached !== null) {
            [$this->columns, $this->rowDecoder] = $cached;

            return;
        }
        $columns = [];
        foreach ($payloads ?? PacketFramer::payloads($span) as $payload) {
            $columns[] = ColumnDefinition::parse($payload);
        }
        $this->columns = $columns;
        $this->rowDecoder = $this->binary ? new BinaryRowDecoder($columns) : new TextRowDecoder($columns);
        $this->cache?->put($this->columnsKey, $columns, $this->rowDecoder);
    }

    private function beginRows(): ResultEvent
    {
        $this->rawColumns = [];
        $this->columnsKey = '';
        $this->state = self::ROWS;

        return ResultEvent::ResultSet;
    }

    private function afterInfile(string $payload): ResultEvent
    {
        if (Packet::isErr($payload)) {
            return $this->fail(ErrPacket::parse($payload));
        }
        if (!Packet::isOk($payload)) {
            throw new ProtocolException('Expected OK or ERR after a refused LOAD DATA LOCAL INFILE');
        }
        $this->okPacket($payload);
        $this->error = new ErrPacket(
            MysqlException::CLIENT_LOCAL_INFILE_REJECTED,
            'HY000',
            \sprintf('LOAD DATA LOCAL INFILE is not supported (the server asked for "%s")', $this->infileName),
        );

        return ResultEvent::Error;
    }

    private function okPacket(string $payload): ResultEvent
    {
        $this->ok = OkPacket::parse($payload, $this->capabilities);
        $this->state = $this->ok->hasMoreResults() ? self::FIRST : self::COMPLETE;

        return ResultEvent::Ok;
    }

    private function fail(ErrPacket $error): ResultEvent
    {
        $this->error = $error;
        $this->state = self::COMPLETE;
        $this->rowDecoder = null;

        return ResultEvent::Error;
    }
}
