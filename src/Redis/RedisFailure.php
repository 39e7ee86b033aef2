<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * Every runtime failure of the Redis client, for code that handles them all alike:
 *
 * - {@see RedisException}: the server answered a command with an error reply; the
 *   connection is fine;
 * - {@see RedisConnectionException}: the connection could not be opened or was lost; the
 *   connection is closed and unusable;
 * - {@see RedisProtocolException}: the server sent bytes that are not valid RESP; the
 *   connection is closed and unusable.
 *
 * Misuse (two coroutines on one connection, a command while subscribed) throws
 * {@see RedisError} instead, and deadlines and cancellation throw Petrel's
 * {@see \Petrel\Coroutine\CancelledException} / TimeoutException unchanged.
 */
interface RedisFailure extends \Throwable
{
}
