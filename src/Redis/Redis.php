<?php

declare(strict_types=1);

namespace Petrel\Redis;

use Closure;
use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Redis\Internal\CommandMethods;
use Petrel\Redis\Internal\ReplyShape;

/**
 * Redis for an app: a pool of connections for this worker with the same typed commands as
 * RedisConnection. Each command borrows a connection for its round trip only, so a handful
 * of connections serve many concurrent requests; pipeline() and transaction() keep one for
 * their batch; subscribe() opens a dedicated connection. A connection that broke (server
 * restart, timeout mid-reply) is closed rather than returned, and the next command connects
 * afresh.
 *
 *     $redis = Redis::fromEnv();            // REDIS_URL, else redis://127.0.0.1:6379/0
 *     $views = $redis->incr('page:views');
 */
final class Redis
{
    use CommandMethods;

    /** @var Pool<RedisConnection> */
    private readonly Pool $pool;

    public function __construct(public readonly RedisConfig $config, PoolConfig $poolConfig = new PoolConfig())
    {
        $this->pool = new Pool(
            "redis {$config->endpoint()}",
            static fn (): RedisConnection => RedisConnection::connect($config),
            $poolConfig,
            isUsable: static fn (RedisConnection $c): bool => $c->isUsable(),
            healthCheck: static fn (RedisConnection $c) => $c->ping(),
            close: static fn (RedisConnection $c) => $c->close(),
        );
    }

    public static function fromUrl(string $url, PoolConfig $poolConfig = new PoolConfig()): self
    {
        return new self(RedisConfig::fromUrl($url), $poolConfig);
    }

    public static function fromEnv(string $variable = 'REDIS_URL', PoolConfig $poolConfig = new PoolConfig()): self
    {
        return new self(RedisConfig::fromEnv($variable), $poolConfig);
    }

    /** Any command, with its raw reply. */
    public function command(string $name, string|int|float ...$args): mixed
    {
        return $this->pool->use(static fn (RedisConnection $c): mixed => $c->command($name, ...$args));
    }

    /**
     * @param Closure(RedisPipeline): mixed $queue
     * @return list<mixed>
     */
    public function pipeline(Closure $queue): array
    {
        return $this->pool->use(static fn (RedisConnection $c): array => $c->pipeline($queue));
    }

    /**
     * @param Closure(RedisPipeline): mixed $queue
     * @return list<mixed>|null null when a watched key changed
     */
    public function transaction(Closure $queue): ?array
    {
        return $this->pool->use(static fn (RedisConnection $c): ?array => $c->transaction($queue));
    }

    /**
     * Listens on a dedicated connection (never a pooled one) until the callback returns
     * false or unsubscribes.
     *
     * @param list<string> $channels
     * @param Closure(string, string): mixed $onMessage
     */
    public function subscribe(array $channels, Closure $onMessage): void
    {
        $connection = RedisConnection::connect($this->config);
        try {
            $connection->subscribe($channels, $onMessage);
        } finally {
            $connection->close();
        }
    }

    /**
     * The current coroutine's own connection, for command sequences that need one
     * connection (WATCH … transaction); returned to the pool when the coroutine ends.
     *
     * Call it again for each unit of work rather than keeping it in a long-lived coroutine:
     * a connection that died meanwhile (server restart, timeout, CLIENT KILL) is replaced by
     * a healthy one, and one left unused for PoolConfig::leaseIdleTimeout (10 s) outside a
     * WATCH is closed (never handed to another coroutine), so an idle coroutine does not
     * pin a pooled connection; the next call gives a new one.
     *
     * @throws RedisConnectionException if it died with keys watched (the WATCH is lost: read them again)
     */
    public function connection(): RedisConnection
    {
        $connection = $this->pool->hold();
        if ($connection->isUsable()) {
            return $connection;
        }
        $watching = $connection->isWatching();
        try {
            $connection->ping(); // alive after all (watching), or misuse the next call reports

            return $connection;
        } catch (RedisError) {
            return $connection;
        } catch (RedisConnectionException $lost) {
            $this->pool->discardLease();
            if ($watching) {
                throw new RedisConnectionException('The Redis connection of this coroutine died while keys were watched, so the WATCH was lost: '
                    . "read them again and retry. {$lost->getMessage()}", 0, $lost);
            }
        }

        return $this->pool->hold();
    }

    /** @return Pool<RedisConnection> */
    public function pool(): Pool
    {
        return $this->pool;
    }

    public function close(): void
    {
        $this->pool->close();
    }

    /** @param array<string|int|float> $command */
    private function call(array $command, ReplyShape $shape = ReplyShape::Raw): mixed
    {
        $name = (string) \array_shift($command);
        $reply = $this->pool->use(static fn (RedisConnection $c): mixed => $c->command($name, ...$command));

        return $shape === ReplyShape::Raw ? $reply : $shape->convert($reply, $this->config->protocol);
    }
}
