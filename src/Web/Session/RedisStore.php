<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Redis\Redis;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;

/**
 * Sessions in Redis, shared by every worker and server: one string key per session
 * ("petrel:session:<id>" by default) holding JSON, expiring with SET … EX. The data is
 * decoded with json_decode, never unserialize(), so a tampered value cannot instantiate
 * objects; an undecodable value reads as no session.
 *
 * The store talks through the Redis facade (each command borrows a pooled connection for
 * its round trip), the app's own or one of its own:
 *
 *     $store = new RedisStore($redis);                          // shares the app's Redis
 *     $store = RedisStore::fromConfig(RedisConfig::fromEnv());  // a pool of its own
 *
 * Redis failures (server down, pool exhausted) are thrown as they are (RedisFailure,
 * PoolException): the request fails rather than silently running without its session.
 */
final class RedisStore implements SessionStore
{
    public const DEFAULT_PREFIX = 'petrel:session:';

    public function __construct(
        private readonly Redis $redis,
        private readonly string $prefix = self::DEFAULT_PREFIX,
    ) {
    }

    /** A store with its own pool of connections to $config (per worker). */
    public static function fromConfig(
        RedisConfig $config,
        string $prefix = self::DEFAULT_PREFIX,
        PoolConfig $poolConfig = new PoolConfig(),
    ): self {
        return new self(new Redis($config, $poolConfig), $prefix);
    }

    public function read(string $id): ?array
    {
        $json = $this->redis->get($this->prefix . $id);
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
        $this->redis->set($this->prefix . $id, $json, \max(1, $ttl));
    }

    public function destroy(string $id): void
    {
        $this->redis->del($this->prefix . $id);
    }

    /**
     * The Redis pool, to close it when the worker stops (shared with the app when the store
     * was given the app's Redis).
     *
     * @return Pool<RedisConnection>
     */
    public function pool(): Pool
    {
        return $this->redis->pool();
    }
}
