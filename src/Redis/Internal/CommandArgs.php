<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Redis\RedisError;

/**
 * Builds the argument lists of the convenience commands that take options, shared by
 * {@see \Petrel\Redis\RedisConnection} and {@see \Petrel\Redis\RedisPipeline}; and guards
 * command() against the commands that would change the connection's mode behind its back.
 *
 * @internal
 */
final class CommandArgs
{
    /** Commands refused by command(), with what to use instead. */
    private const RESERVED = [
        'SUBSCRIBE' => 'subscribe()',
        'PSUBSCRIBE' => 'psubscribe()',
        'SSUBSCRIBE' => 'a dedicated client (sharded pub/sub is not supported)',
        // Allowed outside subscriber mode, they answer once per name (RESP2: the next
        // commands would get those replies) or only with push data (RESP3: no reply comes).
        'UNSUBSCRIBE' => 'unsubscribe(), or return false from the subscribe() callback',
        'PUNSUBSCRIBE' => 'unsubscribe(), or return false from the psubscribe() callback',
        'SUNSUBSCRIBE' => 'a dedicated client (sharded pub/sub is not supported)',
        'MONITOR' => 'redis-cli (MONITOR turns the connection into a stream)',
        // A replica's handshake: the RDB snapshot comes as a bulk string without its CRLF,
        // then the replication stream; REPLCONF ACK has no reply (the next call would wait).
        'SYNC' => 'redis-cli --rdb (SYNC makes the connection a replica\'s)',
        'PSYNC' => 'redis-cli --rdb (PSYNC makes the connection a replica\'s)',
        'REPLCONF' => 'nothing: it is for replicas, whose stream this client does not read',
        'MULTI' => 'transaction()',
        'EXEC' => 'transaction()',
        'DISCARD' => 'transaction() (a closure that throws discards)',
        'HELLO' => 'RedisConfig::withProtocol() (the protocol is fixed per connection)',
        'RESET' => 'a new connection',
        // The connection's state, which a pool hands on to the next borrower: the next
        // coroutine's keys would land in another database, its transaction() fail on
        // keys it never watched, a new AUTH hold until the connection is replaced.
        'SELECT' => 'RedisConfig::withDatabase() or the URL\'s /N, for a client of its own on that database',
        'WATCH' => 'watch(), which the connection and its pool keep track of',
        'UNWATCH' => 'unwatch()',
        'AUTH' => 'the password and username of RedisConfig or the URL, which reconnections use too',
        'QUIT' => 'close()',
    ];

    /** CLIENT subcommands refused: with REPLY OFF or SKIP the server stops answering, and the next call would wait forever. */
    private const RESERVED_CLIENT = ['REPLY' => 'nothing: every command through this client expects its reply'];

    private function __construct()
    {
    }

    /**
     * @param array<string|int|float> $args
     *
     * @throws RedisError when $name is a command that command() must not send
     */
    public static function guard(string $name, array $args = []): void
    {
        $upper = \strtoupper($name);
        $instead = self::RESERVED[$upper] ?? null;
        if ($upper === 'CLIENT' && $args !== []) {
            $subcommand = \strtoupper((string) \reset($args));
            $instead = self::RESERVED_CLIENT[$subcommand] ?? null;
            $upper .= " {$subcommand}";
        }
        if ($instead !== null) {
            throw new RedisError(\sprintf(
                'Redis %s cannot be sent through command(): it changes the state of the connection; use %s',
                $upper,
                $instead,
            ));
        }
    }

    /**
     * @param int|float|null $ttl seconds: an int is sent as EX, a float as PX (milliseconds)
     * @return list<string|int|float>
     */
    public static function set(string $key, string|int|float $value, int|float|null $ttl, bool $nx, bool $xx): array
    {
        $args = ['SET', $key, $value];
        if ($ttl !== null) {
            if ($ttl <= 0 || \is_nan((float) $ttl)) { // not !($ttl > 0): opcache makes it <= 0, false for NaN
                throw new \ValueError("SET: the ttl must be > 0 seconds, {$ttl} given");
            }
            if (\is_int($ttl)) {
                \array_push($args, 'EX', $ttl);
            } else {
                \array_push($args, 'PX', \max(1, (int) \round($ttl * 1000)));
            }
        }
        if ($nx && $xx) {
            throw new \ValueError('SET: nx and xx exclude each other');
        }
        if ($nx) {
            $args[] = 'NX';
        } elseif ($xx) {
            $args[] = 'XX';
        }

        return $args;
    }

    /**
     * ['HSET', key, f1, v1, …] or ['MSET', k1, v1, …] from [field => value].
     *
     * @param array<array-key, string|int|float> $pairs
     * @return list<string|int|float>
     */
    public static function withPairs(string $command, ?string $key, array $pairs): array
    {
        $args = $key === null ? [$command] : [$command, $key];
        foreach ($pairs as $field => $value) {
            $args[] = (string) $field;
            $args[] = $value;
        }

        return $args;
    }

    /**
     * @param array<array-key, int|float> $scores [member => score]
     * @return list<string|int|float>
     */
    public static function zadd(string $key, array $scores): array
    {
        $args = ['ZADD', $key];
        foreach ($scores as $member => $score) {
            $args[] = $score;
            $args[] = (string) $member;
        }

        return $args;
    }

    /** @return list<string|int> */
    public static function zrange(string $key, int $start, int $stop, bool $withScores): array
    {
        return $withScores ? ['ZRANGE', $key, $start, $stop, 'WITHSCORES'] : ['ZRANGE', $key, $start, $stop];
    }

    /** @return list<string|int> */
    public static function scan(string|int $cursor, ?string $match, ?int $count, ?string $type): array
    {
        $args = ['SCAN', $cursor];
        if ($match !== null) {
            \array_push($args, 'MATCH', $match);
        }
        if ($count !== null) {
            \array_push($args, 'COUNT', $count);
        }
        if ($type !== null) {
            \array_push($args, 'TYPE', $type);
        }

        return $args;
    }

    /**
     * @param array<array-key, string|int|float> $fields
     * @return list<string|int|float>
     */
    public static function xadd(string $key, string $id, array $fields, int $maxLen, bool $approximate): array
    {
        if ($fields === []) {
            throw new \ValueError('xadd() needs at least one field');
        }
        $args = ['XADD', $key];
        if ($maxLen > 0) {
            \array_push($args, 'MAXLEN', $approximate ? '~' : '=', $maxLen);
        }
        $args[] = $id;
        foreach ($fields as $field => $value) {
            $args[] = (string) $field;
            $args[] = $value;
        }

        return $args;
    }

    /**
     * @param array<array-key, string|int|float> $streams key => id
     * @return list<string|int|float>
     */
    public static function xreadgroup(string $group, string $consumer, array $streams, ?int $count, ?int $block): array
    {
        if ($streams === []) {
            throw new \ValueError('xreadgroup() needs at least one stream');
        }
        $args = ['XREADGROUP', 'GROUP', $group, $consumer];
        if ($count !== null) {
            \array_push($args, 'COUNT', $count);
        }
        if ($block !== null) {
            \array_push($args, 'BLOCK', $block);
        }
        $args[] = 'STREAMS';
        foreach (\array_keys($streams) as $key) {
            $args[] = (string) $key;
        }
        foreach ($streams as $id) {
            $args[] = $id;
        }

        return $args;
    }
}
