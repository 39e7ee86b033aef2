<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

/**
 * How a convenience method turns a decoded reply into its PHP return value, the same for
 * a direct call and for a pipelined or transactional one. Error replies never get here.
 *
 * RESP2 and RESP3 differ in a few shapes (a hash is a flat list or a map, a score a string
 * or a double); each case takes both.
 *
 * @internal
 */
enum ReplyShape
{
    /** As decoded. */
    case Raw;
    /** Integer 1/0 → true/false (EXPIRE, SISMEMBER). */
    case Bool;
    /** "OK" → true, null (NX/XX condition not met) → false (SET). */
    case Ok;
    /** Anything → null, for methods that return nothing (MSET, FLUSHDB). */
    case Void;
    /** [field, value, …] (RESP2) or a map (RESP3) → [field => value] (HGETALL). */
    case Pairs;
    /** [member, "score", …] (RESP2) or [[member, score], …] (RESP3) → [member => float]. */
    case Scores;
    /** A score as a string (RESP2) or a double (RESP3), or null → ?float (ZSCORE). */
    case Score;
    /** A number as text (or a RESP3 double) → float (INCRBYFLOAT). */
    case Float;
    /** [[id, [field, value, …]], …] → [id => [field => value]] (XRANGE); null → []. */
    case StreamEntries;
    /** [[stream, entries], …] (RESP2) or a map (RESP3) → [stream => [id => [field => value]]] (XREADGROUP); null → []. */
    case Streams;

    public function convert(mixed $reply, int $protocol): mixed
    {
        switch ($this) {
            case self::Raw:
                return $reply;
            case self::Bool:
                return $reply === 1 || $reply === true;
            case self::Ok:
                return $reply !== null && $reply !== false;
            case self::Void:
                return null;
            case self::Pairs:
                return \is_array($reply) && $protocol === 2 ? self::pairs($reply) : $reply;
            case self::Scores:
                return \is_array($reply) ? self::scores($reply) : $reply;
            case self::Score:
                return \is_string($reply) ? self::score($reply) : $reply;
            case self::Float:
                return \is_string($reply) ? self::score($reply) : (\is_int($reply) ? (float) $reply : $reply);
            case self::StreamEntries:
                return \is_array($reply) ? self::entries($reply) : [];
            case self::Streams:
                return \is_array($reply) ? self::streams($reply, $protocol) : [];
        }
    }

    /**
     * @param array<mixed> $flat
     * @return array<int|string, mixed>
     */
    private static function pairs(array $flat): array
    {
        $pairs = [];
        $flat = \array_values($flat);
        for ($i = 0, $n = \count($flat) - 1; $i < $n; $i += 2) {
            $pairs[self::key($flat[$i])] = $flat[$i + 1];
        }

        return $pairs;
    }

    /**
     * @param array<mixed> $reply
     * @return array<int|string, float>
     */
    private static function scores(array $reply): array
    {
        $scores = [];
        $reply = \array_values($reply);
        if (isset($reply[0]) && \is_array($reply[0])) {
            foreach ($reply as $pair) {
                if (\is_array($pair) && \count($pair) === 2) {
                    [$member, $score] = $pair;
                    $scores[self::key($member)] = \is_string($score) ? self::score($score) : (float) $score;
                }
            }

            return $scores;
        }
        for ($i = 0, $n = \count($reply) - 1; $i < $n; $i += 2) {
            $score = $reply[$i + 1];
            $scores[self::key($reply[$i])] = \is_string($score) ? self::score($score) : (float) $score;
        }

        return $scores;
    }

    /**
     * @param array<mixed> $reply
     * @return array<string, array<int|string, mixed>>
     */
    private static function entries(array $reply): array
    {
        $entries = [];
        foreach ($reply as $entry) {
            if (\is_array($entry) && \count($entry) === 2) {
                [$id, $fields] = \array_values($entry);
                $entries[(string) (\is_scalar($id) ? $id : '')] = \is_array($fields) ? self::pairs($fields) : [];
            }
        }

        return $entries;
    }

    /**
     * @param array<mixed> $reply
     * @return array<int|string, array<string, array<int|string, mixed>>>
     */
    private static function streams(array $reply, int $protocol): array
    {
        $streams = [];
        if ($protocol === 3 && !\array_is_list($reply)) {
            foreach ($reply as $stream => $entries) {
                $streams[$stream] = \is_array($entries) ? self::entries($entries) : [];
            }

            return $streams;
        }
        foreach ($reply as $pair) {
            if (\is_array($pair) && \count($pair) === 2) {
                [$stream, $entries] = \array_values($pair);
                $streams[self::key($stream)] = \is_array($entries) ? self::entries($entries) : [];
            }
        }

        return $streams;
    }

    private static function score(string $text): float
    {
        return RespScalars::double($text) ?? (float) $text;
    }

    private static function key(mixed $key): int|string
    {
        return \is_int($key) || \is_string($key) ? $key : (string) \json_encode($key);
    }
}
