<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\Internal\RequestParser;
use Petrel\Http\Response;
use PHPUnit\Framework\TestCase;

/**
 * A head byte-identical to the connection's previous one reuses its parsed parts (what a
 * load generator or a service client sends on every request). The requests must still be
 * independent values with their own bodies, and any byte of difference must parse anew.
 */
final class RequestParserRepeatedHeadTest extends TestCase
{
    private const HEAD = "GET /items?page=2 HTTP/1.1\r\nHost: example.org\r\nAccept: text/html\r\nCookie: a=1\r\n\r\n";

    public function testTheSameHeadTwiceGivesEqualButIndependentRequests(): void
    {
        foreach ([[self::HEAD . self::HEAD], [self::HEAD, self::HEAD], \str_split(self::HEAD . self::HEAD)] as $pieces) {
            $requests = ParserHarness::feedPieces($pieces);
            self::assertCount(2, $requests);
            [$first, $second] = $requests;
            self::assertNotSame($first, $second);
            self::assertSame(ParserHarness::describe($first), ParserHarness::describe($second));
            self::assertSame('2', $second->getQueryParam('page'));
            self::assertSame('1', $second->getCookie('a'));
            $changed = $first->withAttribute('user', 'ada')->withRemoteAddress('10.0.0.1:5000');
            self::assertNull($second->getAttribute('user'), 'the second request shares no state with the first');
            self::assertNotSame('10.0.0.1:5000', $second->getRemoteAddress());
            self::assertSame('ada', $changed->getAttribute('user'));
        }
    }

    public function testARepeatedHeadWithABodyGetsItsOwnBody(): void
    {
        $head = "POST /log HTTP/1.1\r\nHost: example.org\r\nContent-Length: 5\r\n\r\n";
        $chunked = "POST /log HTTP/1.1\r\nHost: example.org\r\nTransfer-Encoding: chunked\r\n\r\n";
        foreach ([
            [$head . 'first' . $head . 'other', ['first', 'other']],
            [$chunked . "3\r\nabc\r\n0\r\n\r\n" . $chunked . "2\r\nxy\r\n0\r\n\r\n", ['abc', 'xy']],
        ] as [$bytes, $bodies]) {
            foreach ([ParserHarness::whole($bytes), ParserHarness::byteByByte($bytes)] as $requests) {
                self::assertSame($bodies, \array_map(static fn ($r): string => (string) $r->getBody(), $requests));
            }
        }
    }

    public function testTheBytesOfTheLastRequestAreABodyWhileABodyIsRead(): void
    {
        // The third read is byte for byte the first request, alone in the buffer, but it
        // is the body the second one announced: it must not be taken for a request.
        $post = "POST /echo HTTP/1.1\r\nHost: example.org\r\nContent-Length: " . \strlen(self::HEAD) . "\r\n\r\n";
        $requests = ParserHarness::feedPieces([self::HEAD, $post, self::HEAD, self::HEAD]);
        self::assertSame(['GET', 'POST', 'GET'], \array_map(static fn ($r): string => $r->getMethod(), $requests));
        self::assertSame(self::HEAD, (string) $requests[1]->getBody());
        self::assertSame('', (string) $requests[2]->getBody());
    }

    public function testAHeadThatDiffersByOneByteIsParsedAnew(): void
    {
        $other = \str_replace('page=2', 'page=3', self::HEAD);
        $requests = ParserHarness::whole(self::HEAD . $other . self::HEAD);
        self::assertSame(['2', '3', '2'], \array_map(static fn ($r) => $r->getQueryParam('page'), $requests));
    }

    public function testABadHeadAfterAGoodOneStillFails(): void
    {
        $bad = \str_replace("Host: example.org\r\n", "Host: example.org\r\nHost: other.org\r\n", self::HEAD); // two Host fields: 400
        $parser = new RequestParser();
        $parser->feed(self::HEAD . $bad);
        self::assertNotNull($parser->next());
        try {
            $parser->next();
            self::fail('a bad Host after a good head was accepted');
        } catch (HttpException $error) {
            self::assertSame(400, $error->getStatus());
        }
    }

    public function testA101BuiltFromTextKeepsBothItsConnectionAndItsContentType(): void
    {
        $response = Response::text('x', 101);
        self::assertSame('Upgrade', $response->getHeader('connection'));
        self::assertStringStartsWith('text/plain', (string) $response->getHeader('content-type'));
    }
}
