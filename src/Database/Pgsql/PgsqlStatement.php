<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Internal\Exchange;
use Petrel\Database\Pgsql\Internal\Link;
use Petrel\Database\Pgsql\Internal\ParsedSql;
use Petrel\Database\Pgsql\Internal\RowDecoder;
use Petrel\Database\Result;
use Petrel\Database\Statement;
use Petrel\Pool\ExclusiveUse;
use PgSql\Result as PgResult;

/**
 * A named server-side prepared statement (pg_send_prepare / pg_send_execute), bound to the
 * connection that prepared it and, like it, used by one coroutine at a time. close() sends
 * DEALLOCATE; a statement dropped without close() is deallocated after the connection's
 * next command.
 */
final class PgsqlStatement implements Statement
{
    private bool $closed = false;
    /** @var array<string, int>|null RowDecoder::casts() of the first result, kept: the columns do not change */
    private ?array $casts = null;

    /** @internal created by PgsqlConnection::prepare() */
    public function __construct(
        private readonly Exchange $exchange,
        private readonly ExclusiveUse $owner,
        private readonly string $name,
        private readonly ParsedSql $parsed,
        private readonly string $sql,
    ) {
    }

    public function query(array $params = []): array
    {
        $result = $this->run($params);

        return RowDecoder::rows($result, $this->casts ??= RowDecoder::casts($result));
    }

    public function execute(array $params = []): Result
    {
        return RowDecoder::summary($this->run($params));
    }

    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if (!$this->exchange->isAlive()) {
            return; // gone with its connection
        }
        if ($this->exchange->transactionStatus() === \PGSQL_TRANSACTION_INERROR) {
            $this->exchange->forget($this->name); // DEALLOCATE would fail in a failed transaction
            return;
        }
        $this->owner->enter();
        try {
            $this->exchange->query("DEALLOCATE {$this->name}", "DEALLOCATE {$this->name}");
        } finally {
            $this->owner->leave();
        }
    }

    public function __destruct()
    {
        if (!$this->closed) {
            $this->exchange->forget($this->name);
        }
    }

    /** @param array<int|string, mixed> $params */
    private function run(array $params): PgResult
    {
        if ($this->closed) {
            throw new DatabaseError('This prepared statement was closed');
        }
        $values = $this->parsed->bind($params);
        $this->owner->enter();
        try {
            return $this->exchange->execute($this->name, $values, $this->sql);
        } finally {
            $this->owner->leave();
        }
    }
}
