<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * The server answered a command with an error reply.
 *
 * The connection is still healthy (unlike {@see RedisProtocolException}); only the
 * command failed. getMessage() is the error text as sent ("WRONGTYPE Operation …").
 */
final class RedisException extends \RuntimeException implements RedisFailure
{
    private function __construct(public readonly RedisErrorReply $reply, ?\Throwable $previous)
    {
        parent::__construct($reply->text(), 0, $previous);
    }

    public static function fromReply(RedisErrorReply $reply, ?\Throwable $previous = null): self
    {
        return new self($reply, $previous);
    }

    /** The error kind: "ERR", "WRONGTYPE", "MOVED", …; '' when the text has no upper-case first word. */
    public function kind(): string
    {
        return $this->reply->kind;
    }

    /** The error text without its kind. */
    public function serverMessage(): string
    {
        return $this->reply->message;
    }
}
