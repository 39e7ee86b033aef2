<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\PushMessage;
use Petrel\Redis\RedisErrorReply;
use Petrel\Redis\RedisProtocolException;
use Random\Engine\Mt19937;
use Random\Randomizer;

/**
 * Feeds RESP bytes to a fresh parser in various splits and collects the replies,
 * normalised so that they compare with assertSame (objects become tagged arrays,
 * NAN becomes the string "@nan").
 */
final class RespFeeder
{
    /** @return list<mixed> normalised replies */
    public static function whole(string $bytes, ?RespParser $parser = null): array
    {
        return self::chunks([$bytes], $parser);
    }

    /** @return list<mixed> normalised replies */
    public static function byteByByte(string $bytes, ?RespParser $parser = null): array
    {
        return self::chunks($bytes === '' ? [] : str_split($bytes), $parser);
    }

    /** @return list<mixed> normalised replies, the input cut in random places (1 to $maxChunk bytes) */
    public static function randomSplits(string $bytes, int $seed, int $maxChunk = 7, ?RespParser $parser = null): array
    {
        return self::chunks(self::split($bytes, $seed, $maxChunk), $parser);
    }

    /** @return list<string> */
    public static function split(string $bytes, int $seed, int $maxChunk): array
    {
        $random = new Randomizer(new Mt19937($seed));
        $chunks = [];
        for ($at = 0, $length = strlen($bytes); $at < $length; $at += $size) {
            $size = $random->getInt(1, $maxChunk);
            $chunks[] = substr($bytes, $at, $size);
        }

        return $chunks;
    }

    /**
     * Feeds each chunk and drains every complete reply after each one.
     *
     * @param list<string> $chunks
     * @return list<mixed> normalised replies
     */
    public static function chunks(array $chunks, ?RespParser $parser = null): array
    {
        $parser ??= new RespParser();
        $replies = [];
        foreach ($chunks as $chunk) {
            $parser->feed($chunk);
            while ($parser->hasNext()) {
                $replies[] = self::normalize($parser->next());
            }
        }

        return $replies;
    }

    /**
     * Replies and the protocol error (if any) from feeding $chunks: the outcome to
     * compare between two ways of splitting the same bytes.
     *
     * @param list<string> $chunks
     * @return array{replies: list<mixed>, error: ?string}
     */
    public static function outcome(array $chunks, ?RespParser $parser = null): array
    {
        $parser ??= new RespParser();
        $replies = [];
        try {
            foreach ($chunks as $chunk) {
                $parser->feed($chunk);
                while ($parser->hasNext()) {
                    $replies[] = self::normalize($parser->next());
                }
            }
        } catch (RedisProtocolException $e) {
            return ['replies' => $replies, 'error' => $e->getMessage()];
        }

        return ['replies' => $replies, 'error' => null];
    }

    public static function normalize(mixed $value): mixed
    {
        if ($value instanceof RedisErrorReply) {
            return ['@error', $value->kind, $value->message];
        }
        if ($value instanceof PushMessage) {
            return ['@push', self::normalize($value->data)];
        }
        if (is_float($value) && is_nan($value)) {
            return '@nan';
        }
        if (is_array($value)) {
            return array_map(self::normalize(...), $value);
        }

        return $value;
    }
}
