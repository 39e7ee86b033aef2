<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * The bytes received are not valid RESP, or exceed a configured limit.
 *
 * The stream can no longer be trusted to be in sync: the connection must be closed.
 */
final class RedisProtocolException extends \RuntimeException implements RedisFailure
{
}
