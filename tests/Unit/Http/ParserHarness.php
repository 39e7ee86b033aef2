<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\RequestParser;
use Petrel\Http\Request;

/** Feeds bytes to a RequestParser in different splits and collects what comes out. */
final class ParserHarness
{
    /**
     * @param list<string> $pieces
     * @return list<Request>
     */
    public static function feedPieces(array $pieces, ?HttpLimits $limits = null): array
    {
        $parser = new RequestParser($limits ?? new HttpLimits());
        $requests = [];
        foreach ($pieces as $piece) {
            $parser->feed($piece);
            while (($request = $parser->next()) !== null) {
                $requests[] = $request;
            }
        }

        return $requests;
    }

    /** @return list<Request> */
    public static function whole(string $bytes, ?HttpLimits $limits = null): array
    {
        return self::feedPieces([$bytes], $limits);
    }

    /** @return list<Request> */
    public static function byteByByte(string $bytes, ?HttpLimits $limits = null): array
    {
        return self::feedPieces(\str_split($bytes), $limits);
    }

    /** @return list<string> */
    public static function randomSplit(string $bytes, int $seed, int $maxPiece = 17): array
    {
        $random = new \Random\Randomizer(new \Random\Engine\Mt19937($seed));
        $pieces = [];
        for ($offset = 0, $length = \strlen($bytes); $offset < $length; $offset += $size) {
            $size = $random->getInt(1, $maxPiece);
            $pieces[] = \substr($bytes, $offset, $size);
        }

        return $pieces;
    }

    /**
     * The status of the HttpException the pieces cause, or null when none is thrown.
     *
     * @param list<string> $pieces
     */
    public static function errorStatus(array $pieces, ?HttpLimits $limits = null): ?int
    {
        try {
            self::feedPieces($pieces, $limits);
        } catch (HttpException $e) {
            return $e->getStatus();
        }

        return null;
    }

    /**
     * A comparable summary of a request.
     *
     * @return array<string, mixed>
     */
    public static function describe(Request $request): array
    {
        return [
            'method' => $request->getMethod(),
            'target' => $request->getTarget(),
            'version' => $request->getProtocolVersion(),
            'headers' => $request->getHeaders(),
            'body' => $request->getBody(),
            'trailers' => $request->getTrailers(),
        ];
    }

    /**
     * @param list<Request> $requests
     * @return list<array<string, mixed>>
     */
    public static function describeAll(array $requests): array
    {
        return \array_map(self::describe(...), $requests);
    }
}
