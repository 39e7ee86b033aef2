<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Request;
use Random\Randomizer;

/**
 * Inputs for the parser fuzzers: valid requests, requests carrying form input PHP warns
 * about (deep nesting, too many variables, odd percent-encoding, huge names), random
 * bytes, and mutations of them. Everything comes from the Randomizer, so a seed replays.
 */
final class ParserFuzzCorpus
{
    public const SEEDS = [
        "GET /a/b?c=d HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nCookie: a=1; b=2\r\n\r\n",
        "POST /form HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2",
        "PUT /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
            . "4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: yes\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /x HTTP/1.1\r\nHost: b\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\nCONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n",
        "GET http://h/p?q=%zz&%=&a%5B%5D=1&a[=2&[b]=3&%00=4&+x.y=5 HTTP/1.1\r\nHost: h\r\nCookie: s=%ff%; =x; y\r\n\r\n",
        "POST /m HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 138\r\n\r\n"
            . "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nfile\r\n--XyZ\r\n"
            . "Content-Disposition: form-data; name=\"t\"\r\n\r\nv\r\n--XyZ--\r\n",
    ];

    public const INTERESTING = [
        "\r\n", "\r", "\n", "\0", ' ', "\t", ':', ';', ',', '0', '9', 'f', '-', "\x7f", "\xff", '"', '%', '%5B', '[', ']', '&',
        "\r\n\r\n", 'Content-Length: 5', 'Transfer-Encoding: chunked', 'ffffffffffffffffff', 'HTTP/1.1', '999999',
        'HTTP/2.0', 'HTTP/1.9', 'PRI * HTTP/2.0', "Content-Type: application/x-www-form-urlencoded\r\n",
    ];

    /** Limits small enough for random inputs to reach them; the body limit keeps cases fast. */
    public static function limits(Randomizer $random): HttpLimits
    {
        $limits = (new HttpLimits())->withMaxBodyBytes(1 << 20)->withBodyMemoryBytes(4096);
        if ($random->getInt(0, 3) !== 0) {
            return $limits;
        }

        return new HttpLimits(
            maxRequestLineBytes: $random->getInt(1, 200),
            maxHeaderBytes: $random->getInt(1, 400),
            maxHeaderCount: $random->getInt(1, 8),
            maxBodyBytes: $random->getInt(1, 300),
            bodyMemoryBytes: $random->getInt(0, 100),
            maxFormFields: $random->getInt(1, 1100),
        );
    }

    public static function generate(Randomizer $random): string
    {
        $choice = $random->getInt(0, 9);
        if ($choice === 0) {
            return $random->getBytes($random->getInt(1, 2048));
        }
        $input = $choice === 1 ? self::hostileForm($random) : self::pick($random, self::SEEDS);
        if ($random->getInt(0, 3) === 0) {
            $input .= self::pick($random, self::SEEDS);
        }
        if ($choice === 1 && $random->getInt(0, 1) === 0) {
            return $input;
        }
        for ($m = $random->getInt(1, 4); $m > 0; --$m) {
            $input = self::mutate($random, $input);
        }

        return $input;
    }

    public static function mutate(Randomizer $random, string $input): string
    {
        $at = $random->getInt(0, \strlen($input) - 1);
        $input = match ($random->getInt(0, 4)) {
            0 => \substr_replace($input, \chr($random->getInt(0, 255)), $at, 1),
            1 => \substr_replace($input, self::pick($random, self::INTERESTING), $at, 0),
            2 => \substr_replace($input, '', $at, $random->getInt(1, 8)),
            3 => \substr_replace($input, \substr($input, $at, $random->getInt(1, 64)), $at, 0),
            default => \substr_replace($input, \chr(\ord($input[$at]) ^ (1 << $random->getInt(0, 7))), $at, 1),
        };

        return $input === '' ? "\r\n" : $input;
    }

    /**
     * Calls every accessor that interprets the request (query, form, files, cookies): what
     * a handler may do with hostile input. Only an HttpException may come out.
     */
    public static function readEverything(Request $request): void
    {
        $request->getPath();
        $request->getCookies();
        $request->isKeepAlive();
        try {
            $request->getQuery();
        } catch (HttpException) {
        }
        try {
            $request->getParsedBody();
            $request->getUploadedFiles();
        } catch (HttpException) {
        }
    }

    /** A request whose query or form body carries names and pairs PHP has limits for. */
    private static function hostileForm(Randomizer $random): string
    {
        $depth = $random->getInt(60, 70);
        $bracket = self::pick($random, [['[', ']'], ['%5B', '%5D'], ['%5b', '%5d'], ['[', '']]);
        $key = self::pick($random, ['a', '', '0', "\xff", '%00']);
        $pairs = match ($random->getInt(0, 4)) {
            0 => 'n' . \str_repeat($bracket[0] . $key . $bracket[1], $depth) . '=1',
            1 => \str_repeat('v[]=1&', $random->getInt(995, 1005)),
            2 => \str_repeat('&', $random->getInt(995, 1005)) . 'x=1',
            3 => \str_repeat(self::pick($random, ['a', '%', '%2', '%zz', '%5B', '.', ' ', '+']), $random->getInt(1, 3000)) . '=v',
            default => 'a=%' . \implode('&b=%', \str_split($random->getBytes(40), 2)),
        };
        $where = $random->getInt(0, 3);
        if ($where < 2) {
            // Bytes a request line cannot hold become '+': the query must reach getQuery().
            $target = '/q?' . \preg_replace('/[\x00-\x20\x7f]/', '+', \substr($pairs, 0, 8000));

            return "GET {$target} HTTP/1.1\r\nHost: a\r\n\r\n";
        }
        if ($where === 2) {
            return "POST /f HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                . 'Content-Length: ' . \strlen($pairs) . "\r\n\r\n" . $pairs;
        }
        $name = \rawurldecode(\explode('=', $pairs, 2)[0]);
        $name = \str_replace(['"', "\r", "\n"], '', \substr($name, 0, 4000));
        $filename = self::pick($random, ['; filename="f.txt"', '']);
        $body = "--B\r\nContent-Disposition: form-data; name=\"{$name}\"{$filename}\r\n\r\nv\r\n--B--\r\n";

        return "POST /m HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=B\r\n"
            . 'Content-Length: ' . \strlen($body) . "\r\n\r\n" . $body;
    }

    /**
     * @template T
     * @param list<T> $list
     * @return T
     */
    private static function pick(Randomizer $random, array $list): mixed
    {
        return $list[$random->getInt(0, \count($list) - 1)];
    }
}
