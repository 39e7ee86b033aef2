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
 * or over the simple protocol (without); keeps each cached statement's row casts, which
 * its results share. Names server-side objects uniquely per connection: petrel_q…
 * (cache), petrel_s… (prepare()), petrel_c… (cursors).
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
    /** @var array<string, array<string, int>> RowDecoder::casts() by cached statement name */
    private array $casts = [];

    /** @param StatementCache<string>|null $cache statement names by SQL */
    public function __construct(private readonly Exchange $exchange, private readonly ?StatementCache $cache)
    {
    }

    public function name(string $prefix): string
    {
        return $prefix . ++$this->sequence;
    }

    /**
     * The rows of $sql, typed (RowDecoder); a statement run by name decodes with the casts
     * kept from its first result.
     *
     * @param list<int|string|null> $values
     * @return list<array<string, mixed>>
     */
    public function rows(ParsedSql $parsed, array $values, string $sql): array
    {
        $result = $this->run($parsed, $values, $sql, $name);

        return RowDecoder::rows($result, $name === null ? null : $this->casts[$name] ??= RowDecoder::casts($result));
    }

    /**
     * @param list<int|string|null> $values
     * @param-out string|null $name the statement's name if it ran by one, null if it ran unnamed
     */
    public function run(ParsedSql $parsed, array $values, string $sql, ?string &$name = null): PgResult
    {
        $name = $this->prepared($parsed, $values, $sql);
        if ($name !== null) {
            try {
                return $this->exchange->execute($name, $values, $sql);
            } catch (QueryException $e) {
                $this->stale($e, $sql, $name); // rethrows unless it can run afresh, unnamed
                $name = null;
            }
        }

        return $this->unprepared($parsed, $values, $sql);
    }

    /**
     * The name to run $sql by: the statement cache's, prepared now on the SQL's second run;
     * null to run it unnamed (no cache, one-off or unpreparable SQL, or a placeholder count
     * that does not match, for the server to report).
     *
     * @param list<int|string|null> $values
     */
    private function prepared(ParsedSql $parsed, array $values, string $sql): ?string
    {
        if ($this->cache === null || !$parsed->preparable || \count($values) !== $parsed->count) {
            return null;
        }
        $name = $this->cache->get($sql);
        if ($name === null && $this->secondRun($sql)) {
            $name = $this->name('petrel_q');
            $this->exchange->prepare($name, $parsed->sql, $sql);
            $evicted = $this->cache->put($sql, $name);
            if ($evicted !== null) {
                $this->exchange->forget($evicted);
                unset($this->casts[$evicted]);
            }
        }

        return $name;
    }

    /** @param list<int|string|null> $values */
    private function unprepared(ParsedSql $parsed, array $values, string $sql): PgResult
    {
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
     * TABLE under a SELECT *: a StalePlan, 0A000) or it is gone (DEALLOCATE ALL, DISCARD
     * ALL: 26000). It leaves the cache; outside a transaction run() then runs the SQL
     * afresh, inside one (now aborted) the error is rethrown. Any other error, another
     * 0A000 included (a function's feature_not_supported, after it may have done work), is
     * rethrown: the statement ran.
     */
    private function stale(QueryException $e, string $sql, string $name): void
    {
        $stalePlan = $e instanceof StalePlan;
        if (!$stalePlan && $e->getSqlState() !== '26000') {
            throw $e;
        }
        $this->cache?->remove($sql);
        unset($this->casts[$name]);
        if ($stalePlan) {
            $this->exchange->forget($name);
        }
        if ($this->exchange->transactionStatus() !== \PGSQL_TRANSACTION_IDLE) {
            throw $e;
        }
    }
}
