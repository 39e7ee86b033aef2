<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;

/**
 * Sessions in Redis, shared by every worker and server: one string key per session
 * ("petrel:session:<id>" by default) holding JSON, expiring with SET … EX. The data is
 * decoded with json_decode, never unserialize(), so a tampered value cannot instantiate
 * objects; an undecodable value reads as no session.
 *
 * A RedisConnection serves one coroutine at a time, so the store takes a pool of them:
 *
 *     $store = RedisStore::fromConfig(RedisConfig::fromEnv());
 *
 * Redis failures (server down, pool exhausted) are thrown as they are (RedisFailure,
 * PoolException): the request fails rather than silently running without its session.
 */
final class RedisStore implements SessionStore
{
    public const DEFAULT_PREFIX = 'petrel:session:';

    /** @param Pool<RedisConnection> $pool */
    public function __construct(
        private readonly Pool $pool,
        private readonly string $prefix = self::DEFAULT_PREFIX,
    ) {
    }

    /** A store with its own pool of connections to $config (per worker). */
    public static function fromConfig(
        RedisConfig $config,
        string $prefix = self::DEFAULT_PREFIX,
        PoolConfig $poolConfig = new PoolConfig(),
    ): self {
        /** @var Pool<RedisConnection> $pool */
        $pool = new Pool(
            'sessions',
            static fn (): RedisConnection => RedisConnection::connect($config),
            $poolConfig,
            isUsable: static fn (RedisConnection $redis): bool => $redis->isUsable(),
            healthCheck: static fn (RedisConnection $redis): string => $redis->ping(),
            close: static function (RedisConnection $redis): void {
                $redis->close();
            },
        );

        return new self($pool, $prefix);
    }

    public function read(string $id): ?array
    {
        $json = $this->pool->use(fn (RedisConnection $redis): ?string => $redis->get($this->prefix . $id));
        if ($json === null) {
            return null;
        }
        try {
            $data = \json_decode($json, true, 512, \JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            return null;
        }

        return \is_array($data) ? $data : null;
    }

    /** @throws \JsonException when $data is not JSON data (Session never hands over such data) */
    public function write(string $id, array $data, int $ttl): void
    {
        $json = \json_encode($data, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION);
        $this->pool->use(fn (RedisConnection $redis): bool => $redis->set($this->prefix . $id, $json, \max(1, $ttl)));
    }

    public function destroy(string $id): void
    {
        $this->pool->use(fn (RedisConnection $redis): int => $redis->del($this->prefix . $id));
    }

    /**
     * The pool, to close it when the worker stops.
     *
     * @return Pool<RedisConnection>
     */
    public function pool(): Pool
    {
        return $this->pool;
    }
}
