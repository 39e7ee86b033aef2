<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * Misuse of the Redis client, a bug in the calling code: a connection used by two
 * coroutines at once, a command sent while the connection is subscribed, a command
 * that would change the connection's mode sent through command(), a pipeline used after
 * its closure returned.
 */
final class RedisError extends \Error
{
}
