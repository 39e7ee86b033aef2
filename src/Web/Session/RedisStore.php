<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Closure;
use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Redis\Redis;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisException;

use function Petrel\sleep;

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
final class RedisStore implements AtomicSessionStore
{
    public const DEFAULT_PREFIX = 'petrel:session:';

    /**
     * update() reads again and retries while another client changes the session between
     * its read and its write; after this many attempts it gives up (a session written
     * without pause by other clients).
     */
    public const UPDATE_ATTEMPTS = 20;

    /**
     * KEYS[1] the session's key; ARGV: whether it existed ('1'/'0') and its value when
     * read, the new value ('' deletes: JSON is never empty), the TTL. 1 when it stored,
     * 0 when the key no longer held what was read.
     */
    private const SET_IF_UNCHANGED = <<<'LUA'
        local stored = redis.call('GET', KEYS[1])
        if (ARGV[1] == '0' and stored ~= false) or (ARGV[1] == '1' and stored ~= ARGV[2]) then
            return 0
        end
        if ARGV[3] == '' then
            redis.call('DEL', KEYS[1])
        else
            redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[4])
        end
        return 1
        LUA;

    private static ?string $scriptSha = null;

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
        return self::decode($this->redis->get($this->prefix . $id));
    }

    /** @throws \JsonException when $data is not JSON data (Session never hands over such data) */
    public function write(string $id, array $data, int $ttl): void
    {
        $this->redis->set($this->prefix . $id, self::encode($data), \max(1, $ttl));
    }

    /**
     * Optimistic, in two round trips and no lock: GET the session, then a script that
     * stores the new value (SET … EX, or DEL for null) only if the key still holds what
     * the GET returned, run by Redis as one step. When another client changed it between
     * the two, the same again with what it wrote, after a random pause of up to 2, 4, 8…
     * 100 ms (clients that lost the same round would otherwise meet again in step), at most
     * UPDATE_ATTEMPTS times. Any pooled connection serves: nothing is held between the two.
     *
     * @throws \RuntimeException when the key changed during each of UPDATE_ATTEMPTS attempts
     */
    public function update(string $id, Closure $change, int $ttl): ?array
    {
        $key = $this->prefix . $id;
        for ($attempt = 1; $attempt <= self::UPDATE_ATTEMPTS; $attempt++) {
            $stored = $this->redis->get($key);
            $data = $change(self::decode($stored));
            $set = $this->setIfUnchanged($key, $stored, $data === null ? '' : self::encode($data), \max(1, $ttl));
            if ($set === 1) {
                return $data;
            }
            sleep(\random_int(1, \min(2 ** $attempt, 100)) / 1000);
        }

        throw new \RuntimeException(\sprintf(
            'The session %s changed in Redis during each of %d attempts to save it; nothing was saved',
            $this->prefix . \substr($id, 0, 8) . '…', // ids are secrets
            self::UPDATE_ATTEMPTS,
        ));
    }

    public function destroy(string $id): void
    {
        $this->redis->del($this->prefix . $id);
    }

    /**
     * Runs SET_IF_UNCHANGED by its SHA1 (Redis keeps the scripts it ran), sending its text
     * only to a server that does not know it yet (NOSCRIPT: the first time, after a
     * restart or SCRIPT FLUSH).
     */
    private function setIfUnchanged(string $key, ?string $stored, string $json, int $ttl): mixed
    {
        $args = [1, $key, $stored === null ? '0' : '1', $stored ?? '', $json, $ttl];
        try {
            return $this->redis->command('EVALSHA', self::$scriptSha ??= \sha1(self::SET_IF_UNCHANGED), ...$args);
        } catch (RedisException $e) {
            if ($e->kind() !== 'NOSCRIPT') {
                throw $e;
            }

            return $this->redis->command('EVAL', self::SET_IF_UNCHANGED, ...$args);
        }
    }

    /** @return array<mixed>|null */
    private static function decode(?string $json): ?array
    {
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

    /** @param array<mixed> $data */
    private static function encode(array $data): string
    {
        return \json_encode($data, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION);
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
