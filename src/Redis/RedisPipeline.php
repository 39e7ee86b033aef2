<?php

declare(strict_types=1);

namespace Petrel\Redis;

use Petrel\Redis\Internal\CommandArgs;
use Petrel\Redis\Internal\ReplyShape;
use Petrel\Redis\Internal\RespEncoder;

/**
 * Commands queued for {@see RedisConnection::pipeline()} or
 * {@see RedisConnection::transaction()}: it has the connection's command methods, which
 * queue the command and return the pipeline (so calls can be chained) instead of a
 * result. The results come back from pipeline() / transaction(), in queueing order, each
 * converted as the connection's method of the same name would return it (null for the
 * methods that return nothing); a command the server refused is a RedisException object
 * in its place.
 *
 * Arguments are checked and encoded as they are queued, so a bad argument throws at the
 * call that queues it. The pipeline is valid only inside its closure.
 */
final class RedisPipeline implements \Countable
{
    private string $payload = '';
    /** @var list<ReplyShape> */
    private array $shapes = [];
    private bool $sealed = false;

    /** @internal created by RedisConnection */
    public function __construct()
    {
    }

    /**
     * Queues any command; its result is the decoded reply, as RedisConnection::command()
     * returns it.
     *
     * @throws RedisError for the commands command() refuses (SUBSCRIBE, MULTI, …)
     */
    public function command(string $name, string|int|float ...$args): self
    {
        CommandArgs::guard($name);

        return $this->add([$name, ...\array_values($args)]);
    }

    /** How many commands are queued. */
    public function count(): int
    {
        return \count($this->shapes);
    }

    /**
     * @internal Ends queueing; returns the encoded commands and how to convert each result.
     * @return array{string, list<ReplyShape>}
     */
    public function seal(): array
    {
        $this->sealed = true;

        return [$this->payload, $this->shapes];
    }

    /** Queues GET; result: ?string. */
    public function get(string $key): self
    {
        return $this->add(['GET', $key]);
    }

    /** Queues SET; result: bool. */
    public function set(
        string $key,
        string|int|float $value,
        int|float|null $ttl = null,
        bool $nx = false,
        bool $xx = false,
    ): self {
        return $this->add(CommandArgs::set($key, $value, $ttl, $nx, $xx), ReplyShape::Ok);
    }

    /** Queues MGET; result: list<?string>. */
    public function mget(string ...$keys): self
    {
        return $this->add(['MGET', ...$keys]);
    }

    /**
     * Queues MSET; result: null.
     *
     * @param array<array-key, string|int|float> $values
     */
    public function mset(array $values): self
    {
        return $this->add(CommandArgs::withPairs('MSET', null, $values), ReplyShape::Void);
    }

    /** Queues INCR; result: int. */
    public function incr(string $key): self
    {
        return $this->add(['INCR', $key]);
    }

    /** Queues INCRBY; result: int. */
    public function incrBy(string $key, int $increment): self
    {
        return $this->add(['INCRBY', $key, $increment]);
    }

    /** Queues DECR; result: int. */
    public function decr(string $key): self
    {
        return $this->add(['DECR', $key]);
    }

    /** Queues DECRBY; result: int. */
    public function decrBy(string $key, int $decrement): self
    {
        return $this->add(['DECRBY', $key, $decrement]);
    }

    /** Queues DEL; result: int. */
    public function del(string $key, string ...$keys): self
    {
        return $this->add(['DEL', $key, ...$keys]);
    }

    /** Queues EXISTS; result: int. */
    public function exists(string $key, string ...$keys): self
    {
        return $this->add(['EXISTS', $key, ...$keys]);
    }

    /** Queues EXPIRE; result: bool. */
    public function expire(string $key, int $seconds): self
    {
        return $this->add(['EXPIRE', $key, $seconds], ReplyShape::Bool);
    }

    /** Queues TTL; result: int. */
    public function ttl(string $key): self
    {
        return $this->add(['TTL', $key]);
    }

    /** Queues KEYS; result: list<string>. */
    public function keys(string $pattern = '*'): self
    {
        return $this->add(['KEYS', $pattern]);
    }

    /** Queues SCAN; result: array{string,. */
    public function scan(string|int $cursor = 0, ?string $match = null, ?int $count = null, ?string $type = null): self
    {
        return $this->add(CommandArgs::scan($cursor, $match, $count, $type));
    }

    /** Queues HGET; result: ?string. */
    public function hget(string $key, string $field): self
    {
        return $this->add(['HGET', $key, $field]);
    }

    /**
     * Queues HSET; result: int.
     *
     * @param array<array-key, string|int|float> $fields
     */
    public function hset(string $key, array $fields): self
    {
        return $this->add(CommandArgs::withPairs('HSET', $key, $fields));
    }

    /** Queues HGETALL; result: array<array-key,. */
    public function hgetall(string $key): self
    {
        return $this->add(['HGETALL', $key], ReplyShape::Pairs);
    }

    /** Queues HDEL; result: int. */
    public function hdel(string $key, string $field, string ...$fields): self
    {
        return $this->add(['HDEL', $key, $field, ...$fields]);
    }

    /** Queues LPUSH; result: int. */
    public function lpush(string $key, string|int|float $value, string|int|float ...$values): self
    {
        return $this->add(['LPUSH', $key, $value, ...$values]);
    }

    /** Queues RPUSH; result: int. */
    public function rpush(string $key, string|int|float $value, string|int|float ...$values): self
    {
        return $this->add(['RPUSH', $key, $value, ...$values]);
    }

    /** Queues LPOP; result: ?string. */
    public function lpop(string $key): self
    {
        return $this->add(['LPOP', $key]);
    }

    /** Queues RPOP; result: ?string. */
    public function rpop(string $key): self
    {
        return $this->add(['RPOP', $key]);
    }

    /** Queues LRANGE; result: list<string>. */
    public function lrange(string $key, int $start = 0, int $stop = -1): self
    {
        return $this->add(['LRANGE', $key, $start, $stop]);
    }

    /** Queues LLEN; result: int. */
    public function llen(string $key): self
    {
        return $this->add(['LLEN', $key]);
    }

    /** Queues SADD; result: int. */
    public function sadd(string $key, string|int|float $member, string|int|float ...$members): self
    {
        return $this->add(['SADD', $key, $member, ...$members]);
    }

    /** Queues SREM; result: int. */
    public function srem(string $key, string|int|float $member, string|int|float ...$members): self
    {
        return $this->add(['SREM', $key, $member, ...$members]);
    }

    /** Queues SMEMBERS; result: list<string>. */
    public function smembers(string $key): self
    {
        return $this->add(['SMEMBERS', $key]);
    }

    /** Queues SISMEMBER; result: bool. */
    public function sismember(string $key, string|int|float $member): self
    {
        return $this->add(['SISMEMBER', $key, $member], ReplyShape::Bool);
    }

    /**
     * Queues ZADD; result: int.
     *
     * @param array<array-key, int|float> $scores
     */
    public function zadd(string $key, array $scores): self
    {
        return $this->add(CommandArgs::zadd($key, $scores));
    }

    /** Queues ZRANGE; result: list<string>, or array<array-key, float> with $withScores. */
    public function zrange(string $key, int $start = 0, int $stop = -1, bool $withScores = false): self
    {
        $shape = $withScores ? ReplyShape::Scores : ReplyShape::Raw;

        return $this->add(CommandArgs::zrange($key, $start, $stop, $withScores), $shape);
    }

    /** Queues ZSCORE; result: ?float. */
    public function zscore(string $key, string|int|float $member): self
    {
        return $this->add(['ZSCORE', $key, $member], ReplyShape::Score);
    }

    /** Queues ZREM; result: int. */
    public function zrem(string $key, string|int|float $member, string|int|float ...$members): self
    {
        return $this->add(['ZREM', $key, $member, ...$members]);
    }

    /** Queues PUBLISH; result: int. */
    public function publish(string $channel, string $message): self
    {
        return $this->add(['PUBLISH', $channel, $message]);
    }

    /** Queues PING; result: string. */
    public function ping(?string $message = null): self
    {
        return $this->add($message === null ? ['PING'] : ['PING', $message]);
    }

    /** Queues FLUSHDB; result: null. */
    public function flushdb(): self
    {
        return $this->add(['FLUSHDB'], ReplyShape::Void);
    }

    /** @param array<string|int|float> $command */
    private function add(array $command, ReplyShape $shape = ReplyShape::Raw): self
    {
        if ($this->sealed) {
            throw new RedisError(
                'This Redis pipeline was already sent: queue commands inside the pipeline() or transaction() closure only',
            );
        }
        $this->payload .= RespEncoder::encode($command);
        $this->shapes[] = $shape;

        return $this;
    }
}
