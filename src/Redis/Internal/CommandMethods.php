<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

/**
 * The typed convenience methods of {@see \Petrel\Redis\RedisConnection}, one per Redis
 * command, each a thin layer over call(). {@see \Petrel\Redis\RedisPipeline}'s queueing
 * twins are generated from these by PipelineSource: after a change here, run
 * `php -r 'require "vendor/autoload.php"; Petrel\Redis\Internal\PipelineSource::write();'`
 * (tests/Unit/Redis/PipelineInStepTest fails until then).
 *
 * Values are binary safe: strings go out byte for byte; ints and floats as their decimal
 * text. Array results keyed by field or member (hgetall, zrange with scores) follow PHP's
 * rule that a numeric-string key becomes an int key ("7" → 7).
 *
 * @internal
 */
trait CommandMethods
{
    /**
     * Sends one command and returns its reply converted by $shape.
     *
     * @param array<string|int|float> $command
     */
    abstract private function call(array $command, ReplyShape $shape = ReplyShape::Raw): mixed;

    /** GET: the value, or null when the key does not exist. */
    public function get(string $key): ?string
    {
        return $this->call(['GET', $key]);
    }

    /**
     * SET, with an optional time to live (an int: whole seconds, EX; a float: PX
     * milliseconds) and a condition (nx: only if absent; xx: only if present).
     *
     * @return bool true if the value was set, false if the nx/xx condition was not met
     */
    public function set(
        string $key,
        string|int|float $value,
        int|float|null $ttl = null,
        bool $nx = false,
        bool $xx = false,
    ): bool {
        return $this->call(CommandArgs::set($key, $value, $ttl, $nx, $xx), ReplyShape::Ok);
    }

    /**
     * MGET: the values in the order of the keys, null for missing ones.
     *
     * @return list<?string>
     */
    public function mget(string ...$keys): array
    {
        return $this->call(['MGET', ...$keys]);
    }

    /**
     * MSET: sets every key => value at once.
     *
     * @param array<array-key, string|int|float> $values
     */
    public function mset(array $values): void
    {
        $this->call(CommandArgs::withPairs('MSET', null, $values), ReplyShape::Void);
    }

    /** INCR: the value after the increment. */
    public function incr(string $key): int
    {
        return $this->call(['INCR', $key]);
    }

    /** INCRBY: the value after the increment. */
    public function incrBy(string $key, int $increment): int
    {
        return $this->call(['INCRBY', $key, $increment]);
    }

    /** INCRBYFLOAT: the value after the increment, as a float (the server answers with text). */
    public function incrByFloat(string $key, float $increment): float
    {
        return $this->call(['INCRBYFLOAT', $key, $increment], ReplyShape::Float);
    }

    /** DECR: the value after the decrement. */
    public function decr(string $key): int
    {
        return $this->call(['DECR', $key]);
    }

    /** DECRBY: the value after the decrement. */
    public function decrBy(string $key, int $decrement): int
    {
        return $this->call(['DECRBY', $key, $decrement]);
    }

    /** DEL: how many of the keys existed (and were deleted). */
    public function del(string $key, string ...$keys): int
    {
        return $this->call(['DEL', $key, ...$keys]);
    }

    /** EXISTS: how many of the keys exist (a key named twice counts twice). */
    public function exists(string $key, string ...$keys): int
    {
        return $this->call(['EXISTS', $key, ...$keys]);
    }

    /** EXPIRE: true if the time to live was set, false if the key does not exist. */
    public function expire(string $key, int $seconds): bool
    {
        return $this->call(['EXPIRE', $key, $seconds], ReplyShape::Bool);
    }

    /** TTL: seconds left; -1 when the key has no expiry, -2 when it does not exist. */
    public function ttl(string $key): int
    {
        return $this->call(['TTL', $key]);
    }

    /**
     * KEYS: every key matching $pattern. It blocks the server while it walks the whole
     * keyspace: prefer scan() on a big database.
     *
     * @return list<string>
     */
    public function keys(string $pattern = '*'): array
    {
        return $this->call(['KEYS', $pattern]);
    }

    /**
     * SCAN: one step of an iteration over the keys. Start with cursor 0 and call again
     * with the returned cursor until it is "0"; a key may come more than once.
     *
     *     $cursor = '0';
     *     do {
     *         [$cursor, $keys] = $redis->scan($cursor, match: 'user:*');
     *     } while ($cursor !== '0');
     *
     * @return array{string, list<string>} the next cursor and a batch of keys
     */
    public function scan(string|int $cursor = 0, ?string $match = null, ?int $count = null, ?string $type = null): array
    {
        return $this->call(CommandArgs::scan($cursor, $match, $count, $type));
    }

    /** HGET: the field's value, or null when the field or the key does not exist. */
    public function hget(string $key, string $field): ?string
    {
        return $this->call(['HGET', $key, $field]);
    }

    /**
     * HSET: sets every field => value of $fields; returns how many fields were new.
     *
     * @param array<array-key, string|int|float> $fields
     */
    public function hset(string $key, array $fields): int
    {
        return $this->call(CommandArgs::withPairs('HSET', $key, $fields));
    }

    /**
     * HGETALL: field => value ([] when the key does not exist).
     *
     * @return array<array-key, string>
     */
    public function hgetall(string $key): array
    {
        return $this->call(['HGETALL', $key], ReplyShape::Pairs);
    }

    /** HDEL: how many of the fields existed (and were removed). */
    public function hdel(string $key, string $field, string ...$fields): int
    {
        return $this->call(['HDEL', $key, $field, ...$fields]);
    }

    /** LPUSH: the length of the list afterwards (the last value ends up first). */
    public function lpush(string $key, string|int|float $value, string|int|float ...$values): int
    {
        return $this->call(['LPUSH', $key, $value, ...$values]);
    }

    /** RPUSH: the length of the list afterwards. */
    public function rpush(string $key, string|int|float $value, string|int|float ...$values): int
    {
        return $this->call(['RPUSH', $key, $value, ...$values]);
    }

    /** LPOP: the first element, removed; null when the list is empty or missing. */
    public function lpop(string $key): ?string
    {
        return $this->call(['LPOP', $key]);
    }

    /** RPOP: the last element, removed; null when the list is empty or missing. */
    public function rpop(string $key): ?string
    {
        return $this->call(['RPOP', $key]);
    }

    /**
     * LRANGE: elements $start to $stop, both inclusive; negative indexes count from the end.
     *
     * @return list<string>
     */
    public function lrange(string $key, int $start = 0, int $stop = -1): array
    {
        return $this->call(['LRANGE', $key, $start, $stop]);
    }

    /** LLEN: the length of the list, 0 when it does not exist. */
    public function llen(string $key): int
    {
        return $this->call(['LLEN', $key]);
    }

    /** SADD: how many members were new. */
    public function sadd(string $key, string|int|float $member, string|int|float ...$members): int
    {
        return $this->call(['SADD', $key, $member, ...$members]);
    }

    /** SREM: how many members were there (and were removed). */
    public function srem(string $key, string|int|float $member, string|int|float ...$members): int
    {
        return $this->call(['SREM', $key, $member, ...$members]);
    }

    /**
     * SMEMBERS: the members, in no particular order.
     *
     * @return list<string>
     */
    public function smembers(string $key): array
    {
        return $this->call(['SMEMBERS', $key]);
    }

    /** SISMEMBER */
    public function sismember(string $key, string|int|float $member): bool
    {
        return $this->call(['SISMEMBER', $key, $member], ReplyShape::Bool);
    }

    /**
     * ZADD: adds or updates member => score pairs; returns how many members were new.
     *
     * @param array<array-key, int|float> $scores
     */
    public function zadd(string $key, array $scores): int
    {
        return $this->call(CommandArgs::zadd($key, $scores));
    }

    /**
     * ZRANGE by rank, lowest score first: the members, or member => score with $withScores.
     *
     * @return ($withScores is true ? array<array-key, float> : list<string>)
     */
    public function zrange(string $key, int $start = 0, int $stop = -1, bool $withScores = false): array
    {
        $shape = $withScores ? ReplyShape::Scores : ReplyShape::Raw;

        return $this->call(CommandArgs::zrange($key, $start, $stop, $withScores), $shape);
    }

    /** ZSCORE: the member's score, null when the member or the key does not exist. */
    public function zscore(string $key, string|int|float $member): ?float
    {
        return $this->call(['ZSCORE', $key, $member], ReplyShape::Score);
    }

    /** ZREM: how many members were there (and were removed). */
    public function zrem(string $key, string|int|float $member, string|int|float ...$members): int
    {
        return $this->call(['ZREM', $key, $member, ...$members]);
    }

    /**
     * XADD: appends an entry (field => value) to a stream and returns its id; $id '*' lets
     * the server choose. $maxLen > 0 trims the stream to that many entries (MAXLEN, "~" with
     * $approximate: cheaper, at least that many are kept).
     *
     * @param array<array-key, string|int|float> $fields
     */
    public function xadd(string $key, string $id, array $fields, int $maxLen = 0, bool $approximate = false): string
    {
        return $this->call(CommandArgs::xadd($key, $id, $fields, $maxLen, $approximate));
    }

    /**
     * XRANGE: the entries between two ids ("-" and "+": the ends), as id => [field => value],
     * oldest first; [] when there are none.
     *
     * @return array<string, array<array-key, string>>
     */
    public function xrange(string $key, string $start = '-', string $end = '+', ?int $count = null): array
    {
        $command = ['XRANGE', $key, $start, $end];
        if ($count !== null) {
            \array_push($command, 'COUNT', $count);
        }

        return $this->call($command, ReplyShape::StreamEntries);
    }

    /**
     * XREADGROUP: reads as $consumer of $group from each stream key => id (">" for entries
     * never delivered to the group, an id for this consumer's pending ones). Waits up to
     * $block milliseconds (0: indefinitely) when given, and nothing is there. Returns
     * stream => [id => [field => value]], as phpredis does, and [] when nothing was read.
     *
     * @param array<string, string> $streams
     * @return array<array-key, array<string, array<array-key, string>>>
     */
    public function xreadgroup(string $group, string $consumer, array $streams, ?int $count = null, ?int $block = null): array
    {
        return $this->call(CommandArgs::xreadgroup($group, $consumer, $streams, $count, $block), ReplyShape::Streams);
    }

    /**
     * XACK: marks entries of a stream as processed by $group; how many were pending.
     *
     * @param array<string> $ids
     */
    public function xack(string $key, string $group, array $ids): int
    {
        return $this->call(['XACK', $key, $group, ...\array_values($ids)]);
    }

    /** PUBLISH: how many subscribers received the message. */
    public function publish(string $channel, string $message): int
    {
        return $this->call(['PUBLISH', $channel, $message]);
    }

    /** PING: "PONG", or $message echoed back. */
    public function ping(?string $message = null): string
    {
        return $this->call($message === null ? ['PING'] : ['PING', $message]);
    }

    /** FLUSHDB: deletes every key of the selected database. */
    public function flushdb(): void
    {
        $this->call(['FLUSHDB'], ReplyShape::Void);
    }
}
