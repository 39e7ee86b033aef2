<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\QueryException;
use PgSql\Result as PgResult;

/**
 * Runs a statement the cheapest way it can: by name when the statement cache holds it
 * (preparing it on its second run), otherwise as an unnamed statement (with parameters)
 * or over the simple protocol (without). Names server-side objects uniquely per
 * connection: petrel_q… (cache), petrel_s… (prepare()), petrel_c… (cursors).
 *
 * @internal
 */
final class Executor
{
    private int $sequence = 0;

    public function __construct(private readonly Exchange $exchange, private readonly ?StatementCache $cache)
    {
    }

    public function name(string $prefix): string
    {
        return $prefix . ++$this->sequence;
    }

    /** @param list<int|string|null> $values */
    public function run(ParsedSql $parsed, array $values, string $sql): PgResult
    {
        if ($this->cache !== null && $parsed->preparable && \count($values) === $parsed->count) {
            $name = $this->cache->lookup($sql);
            if ($name === null && $this->cache->wantsPrepared($sql)) {
                $name = $this->name('petrel_q');
                $this->exchange->prepare($name, $parsed->sql, $sql);
                $evicted = $this->cache->add($sql, $name);
                if ($evicted !== null) {
                    $this->exchange->forget($evicted);
                }
            }
            if ($name !== null) {
                try {
                    return $this->exchange->execute($name, $values, $sql);
                } catch (QueryException $e) {
                    $this->stale($e, $sql, $name);
                }
            }
        }

        return $values === []
            ? $this->exchange->query($parsed->sql, $sql)
            : $this->exchange->queryParams($parsed->sql, $values, $sql);
    }

    /**
     * A cached statement the server no longer accepts: its result type changed (ALTER
     * TABLE under a SELECT *: 0A000) or it is gone (DEALLOCATE ALL, DISCARD ALL: 26000). It
     * leaves the cache; outside a transaction run() then runs the SQL afresh, inside one
     * (now aborted) the error is rethrown.
     */
    private function stale(QueryException $e, string $sql, string $name): void
    {
        $state = $e->getSqlState();
        if ($state !== '0A000' && $state !== '26000') {
            throw $e;
        }
        $this->cache?->remove($sql);
        if ($state === '0A000') {
            $this->exchange->forget($name);
        }
        if ($this->exchange->transactionStatus() !== \PGSQL_TRANSACTION_IDLE) {
            throw $e;
        }
    }
}
