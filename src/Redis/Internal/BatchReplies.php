<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Redis\RedisErrorReply;
use Petrel\Redis\RedisException;

/**
 * Turns the replies of a pipeline or of EXEC into the results the caller gets.
 *
 * @internal
 */
final class BatchReplies
{
    private function __construct()
    {
    }

    /**
     * Each reply converted by its command's shape; an error reply becomes a
     * RedisException object in its place (returned, not thrown).
     *
     * @param list<mixed> $replies
     * @param list<ReplyShape> $shapes
     * @return list<mixed>
     */
    public static function results(array $replies, array $shapes, int $protocol): array
    {
        foreach ($replies as $i => $reply) {
            if ($reply instanceof RedisErrorReply) {
                $replies[$i] = RedisException::fromReply($reply);
            } elseif ($shapes[$i] !== ReplyShape::Raw) {
                $replies[$i] = $shapes[$i]->convert($reply, $protocol);
            }
        }

        return $replies;
    }

    /**
     * The exception for a transaction the server refused (EXECABORT, or a MULTI error):
     * the last error reply, with the first (the command that could not be queued) as its
     * previous exception; null when there is no error reply.
     *
     * @param list<mixed> $replies MULTI's, the queued commands' and EXEC's replies
     */
    public static function refusal(array $replies): ?RedisException
    {
        $errors = [];
        foreach ($replies as $reply) {
            if ($reply instanceof RedisErrorReply) {
                $errors[] = $reply;
            }
        }
        $count = \count($errors);
        if ($count === 0) {
            return null;
        }
        $last = $errors[$count - 1];

        return RedisException::fromReply($last, $count === 1 ? null : RedisException::fromReply($errors[0]));
    }
}
