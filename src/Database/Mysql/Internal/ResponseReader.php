<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\ConnectionException;
use Petrel\Database\QueryException;
use Petrel\Database\Result;

/**
 * Reads the responses of one connection off its Link with the codec's ResultDecoder, and
 * keeps the server status flags they carry (in a transaction or not). Server errors are
 * thrown once the whole response has been read, so the connection stays in step.
 *
 * A stream abandoned mid-response cannot wait for the rest where it is dropped (PHP 8.2
 * forbids switching fibers in destructors), so abandon() skips what has arrived and leaves
 * the rest to catchUp(), which the connection runs before its next command.
 *
 * @internal
 */
final class ResponseReader
{
    /** The rows of the first result set. */
    public const FIRST_SET = 0;
    /** The rows of every result set. */
    public const ALL_SETS = 1;
    /** What the first statement did: a Result. */
    public const OUTCOME = 2;
    /** Rows decoded per batch while streaming (bounded memory). */
    private const STREAM_BATCH = 128;

    /** The ServerStatus flags of the last OK or EOF packet. */
    public int $status;
    /** A response abandoned by a stream, to skip before the next command. */
    public ?ResultDecoder $pending = null;

    public function __construct(private readonly Link $link, int $status)
    {
        $this->status = $status;
    }

    /**
     * Reads a whole response; rows after the first set are skipped undecoded unless all are
     * wanted.
     *
     * @return list<array<string, mixed>>|list<list<array<string, mixed>>>|Result
     * @throws QueryException|ConnectionException once the response is read, for a server error
     */
    public function read(ResultDecoder $decoder, string $sql, int $mode): array|Result
    {
        $framer = $this->link->framer;
        $rows = [];
        $sets = [];
        $result = null;
        $error = null;
        if ($framer->bufferedLength() === 0) {
            $this->link->fill(); // the reply to a command just sent: nothing can be there yet
        }
        do {
            $event = $result === null || $mode === self::ALL_SETS
                ? $decoder->drain($framer, $rows)
                : $decoder->skip($framer);
            if ($event === null) {
                $this->link->fill();
                continue;
            }
            if ($event === ResultEvent::ResultSetEnd) {
                if ($mode === self::ALL_SETS) {
                    $sets[] = $rows;
                } elseif ($result === null) {
                    $result = $mode === self::FIRST_SET ? $rows : new Result(\count($rows));
                }
                $rows = [];
            } elseif ($event === ResultEvent::Ok && $mode === self::OUTCOME && $result === null) {
                $ok = $decoder->ok();
                $result = new Result($ok->affectedRows, $ok->lastInsertId === 0 ? null : $ok->lastInsertId);
            }
            if ($event !== ResultEvent::ResultSet) {
                $error ??= $this->handle($decoder, $event);
            }
        } while (!$decoder->isComplete());
        if ($error !== null) {
            throw $this->error($error, $sql);
        }

        return match ($mode) {
            self::ALL_SETS => $sets,
            self::FIRST_SET => $result ?? [],
            default => $result ?? new Result(0),
        };
    }

    /**
     * Yields the rows of the first result set as they are decoded, reading past any other.
     *
     * @return \Generator<int, array<string, mixed>>
     */
    public function stream(ResultDecoder $decoder, string $sql): \Generator
    {
        $framer = $this->link->framer;
        $rows = [];
        $sets = 0;
        $error = null;
        do {
            $event = $decoder->drain($framer, $rows, self::STREAM_BATCH);
            if ($rows !== []) {
                if ($sets === 0) {
                    foreach ($rows as $row) {
                        yield $row;
                    }
                }
                $rows = [];
            }
            if ($event === null) {
                $this->link->fill();
            } elseif ($event !== ResultEvent::Row) {
                $sets += $event === ResultEvent::ResultSetEnd ? 1 : 0;
                $error ??= $this->handle($decoder, $event);
            }
        } while (!$decoder->isComplete());
        if ($error !== null) {
            throw $this->error($error, $sql);
        }
    }

    /** Skips what has already arrived of an abandoned response, without waiting (for destructors). */
    public function abandon(ResultDecoder $decoder): void
    {
        while (($event = $decoder->skip($this->link->framer)) !== null) {
            $this->handle($decoder, $event);
            if ($decoder->isComplete()) {
                return;
            }
        }
        $this->pending = $decoder;
    }

    /** Skips the rest of an abandoned response, waiting for it. */
    public function catchUp(): void
    {
        $decoder = $this->pending;
        $this->pending = null;
        while ($decoder !== null && !$decoder->isComplete()) {
            $event = $decoder->skip($this->link->framer);
            if ($event === null) {
                $this->link->fill();
            } else {
                $this->handle($decoder, $event);
            }
        }
    }

    /** Reads the reply to a command answered by OK or ERR (COM_PING). */
    public function ok(int $capabilities): ?ErrPacket
    {
        $reply = $this->link->next();
        if (Packet::isErr($reply)) {
            return ErrPacket::parse($reply);
        }
        $this->status = OkPacket::parse($reply, $capabilities)->statusFlags;

        return null;
    }

    public function inTransaction(): bool
    {
        return ($this->status & ServerStatus::IN_TRANS) !== 0;
    }

    public function autocommits(): bool
    {
        return ($this->status & ServerStatus::AUTOCOMMIT) !== 0;
    }

    /** Status bookkeeping for one response event; returns the server's error, if it was one. */
    private function handle(ResultDecoder $decoder, ResultEvent $event): ?ErrPacket
    {
        if ($event === ResultEvent::ResultSetEnd || $event === ResultEvent::Ok) {
            $this->status = $decoder->ok()->statusFlags;
        } elseif ($event === ResultEvent::Error) {
            return $decoder->error();
        } elseif ($event === ResultEvent::LocalInfileRequest) {
            $this->link->reply(''); // refused (we never offer LOCAL_FILES): an empty packet
        }

        return null;
    }

    private function error(ErrPacket $error, string $sql): QueryException|ConnectionException
    {
        if ($error->code === ServerError::DEADLOCK) {
            $this->status &= ~ServerStatus::IN_TRANS; // the server rolled the transaction back
        }

        return ServerError::toException($error, $this->link->where, $sql);
    }
}
