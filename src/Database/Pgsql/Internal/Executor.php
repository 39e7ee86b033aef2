<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\DatabaseError;
use Petrel\Database\Internal\StatementCache;
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
    /** SQL seen this many times without being prepared is forgotten all at once (a bound on memory). */
    private const SEEN_LIMIT = 4096;

    private int $sequence = 0;
    /** @var array<string, true> SQL run once, not prepared yet */
    private array $seen = [];

    /** @param StatementCache<string>|null $cache statement names by SQL */
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
            $name = $this->cache->get($sql);
            if ($name === null && $this->secondRun($sql)) {
                $name = $this->name('petrel_q');
                $this->exchange->prepare($name, $parsed->sql, $sql);
                $evicted = $this->cache->put($sql, $name);
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

        if (!$parsed->preparable && \stripos($parsed->sql, 'copy') !== false) {
            self::refuseCopy($parsed->sql);
        }

        return $values === []
            ? $this->exchange->query($parsed->sql, $sql)
            : $this->exchange->queryParams($parsed->sql, $values, $sql);
    }

    /** True the second time $sql runs: time to prepare it (one-off SQL never is). */
    private function secondRun(string $sql): bool
    {
        if (isset($this->seen[$sql])) {
            unset($this->seen[$sql]);

            return true;
        }
        if (\count($this->seen) >= self::SEEN_LIMIT) {
            $this->seen = [];
        }
        $this->seen[$sql] = true;

        return false;
    }

    /**
     * COPY … FROM STDIN / TO STDOUT would put the connection in a copy mode this client
     * cannot drive: refused before it is sent, so the connection stays usable.
     */
    private static function refuseCopy(string $sql): void
    {
        if (\preg_match('/(?:^|;)\s*COPY\b[^;]*\b(?:FROM\s+STDIN|TO\s+STDOUT)\b/i', $sql) === 1) {
            throw new DatabaseError(
                'COPY … FROM STDIN and COPY … TO STDOUT are not supported by this client (nothing was sent; '
                . 'the connection is still usable): use INSERT … VALUES with many rows, or COPY with a server-side file',
            );
        }
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
