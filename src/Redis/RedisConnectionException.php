<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * A Redis connection could not be established (refused, timed out, authentication or
 * database selection refused), or was lost (closed by the server, reset, killed with
 * CLIENT KILL). The message names the server ("Redis at 127.0.0.1:6379 …"); the socket
 * error or the server's error reply, when there is one, is the previous exception.
 *
 * It is not a {@see RedisException} on purpose: that one means "the server refused this
 * command, the connection is fine", this one means "the connection is gone"
 * ({@see RedisConnection::isUsable()} is false). Both implement {@see RedisFailure}.
 */
final class RedisConnectionException extends \RuntimeException implements RedisFailure
{
}
