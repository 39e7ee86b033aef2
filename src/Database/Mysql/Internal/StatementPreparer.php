<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\DatabaseError;
use Petrel\Database\Internal\ParameterValue;
use Petrel\Database\Internal\StatementCache;

/**
 * Server-side prepared statements for queries with parameters: prepares each SQL text once
 * (COM_STMT_PREPARE, one round trip), keeps it in an LRU cache, and sends COM_STMT_EXECUTE.
 * Statements dropped from the cache are closed with the next command (COM_STMT_CLOSE has
 * no reply, so it costs no round trip). If the server's global max_prepared_stmt_count is
 * reached, the cache is emptied and the prepare tried once more.
 *
 * @internal
 */
final class StatementPreparer
{
    /** @var StatementCache<PreparedStatement> */
    private readonly StatementCache $cache;

    public function __construct(private readonly Link $link, private readonly int $capabilities, int $capacity)
    {
        $this->cache = new StatementCache($capacity);
    }

    /**
     * Sends the execution of $sql with $params (the reply is the caller's to read).
     *
     * @param array<int|string, mixed> $params
     */
    public function execute(string $sql, array $params): void
    {
        $statement = $this->cache->get($sql);
        $oneShot = false;
        if ($statement === null) {
            $statement = $this->prepare($sql);
            if ($this->cache->capacity > 0) {
                $evicted = $this->cache->put($sql, $statement);
                if ($evicted !== null) {
                    $this->close($evicted);
                }
            } else {
                $oneShot = true;
            }
        }
        try {
            $payload = $this->encode($statement, $params);
        } catch (DatabaseError $e) {
            if ($oneShot) {
                $this->close($statement);
            }
            throw $e;
        }
        $this->link->send($payload);
        if ($oneShot) {
            $this->close($statement); // queued: goes out after this execution, with the next command
        }
    }

    /** COM_STMT_PREPARE, after rewriting :name placeholders; a server error becomes a QueryException. */
    public function prepare(string $sql, bool $retry = true): PreparedStatement
    {
        $placeholders = Placeholders::parse($sql);
        $this->link->send(Command::stmtPrepare($placeholders->sql));
        $decoder = new PrepareResponseDecoder($this->capabilities);
        while (!$decoder->push($this->link->next())) {
            // definitions of parameters and columns: the execution's reply repeats the latter
        }
        $ok = $decoder->result();
        if ($ok !== null) {
            return new PreparedStatement($ok->statementId, $ok->paramCount, $placeholders);
        }
        $error = $decoder->error();
        \assert($error !== null);
        if ($retry && $error->code === ServerError::TOO_MANY_PREPARED_STATEMENTS && $this->cache->count() > 0) {
            foreach ($this->cache->clear() as $statement) {
                $this->close($statement);
            }

            return $this->prepare($sql, false);
        }
        throw ServerError::toException($error, $this->link->where, $sql);
    }

    /**
     * The COM_STMT_EXECUTE payload.
     *
     * @param array<int|string, mixed> $params
     * @throws DatabaseError when the parameters do not fit the placeholders or cannot be sent
     */
    public function encode(PreparedStatement $statement, array $params): string
    {
        try {
            return $statement->execute($params);
        } catch (\TypeError | \ValueError $e) {
            foreach ($params as $key => $value) {
                ParameterValue::normalize($value, $key); // throws the Database layer's DatabaseError
            }
            throw new DatabaseError($e->getMessage(), 0, $e);
        }
    }

    public function close(PreparedStatement $statement): void
    {
        $this->link->queue(Command::stmtClose($statement->id));
    }
}
