<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http\Psr;

use Petrel\Http\Psr\Internal\BufferedBodyStream;
use Petrel\Http\StreamBody;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/** The PSR-7 view of a string or a generator's chunks: lazy, seekable, and what is sent after it. */
#[CoversClass(BufferedBodyStream::class)]
final class BufferedBodyStreamTest extends TestCase
{
    /** @return \Generator<int, string> */
    private static function generate(string ...$chunks): \Generator
    {
        yield from $chunks;
    }

    public function testAGeneratorIsReadOnDemandAndSeekable(): void
    {
        $pulled = 0;
        $chunks = (static function () use (&$pulled): \Generator {
            foreach (['ab', '', 'cd', 'ef'] as $chunk) {
                $pulled++;
                yield $chunk;
            }
        })();
        $stream = BufferedBodyStream::ofResponseBody(new StreamBody($chunks));

        self::assertSame([0, null, false], [$pulled, $stream->getSize(), $stream->replacesOriginal()]);
        self::assertSame('abc', $stream->read(3), 'as many bytes as asked, across chunks');
        self::assertSame(3, $pulled, 'no further than needed');
        self::assertTrue($stream->replacesOriginal(), 'the generator is started: its first bytes are only here');
        $stream->rewind();
        self::assertSame('abcdef', $stream->getContents());
        self::assertSame([6, true], [$stream->getSize(), $stream->eof()]);
        $stream->seek(-2, \SEEK_END);
        self::assertSame('ef', (string) $stream->read(10));
        self::assertSame('abcdef', $stream->toResponseBody(), 'all in and small: a string');
    }

    /**
     * A large stream a middleware only peeked at: what it read comes from the buffer, the
     * rest straight from the generator, not buffered (a long export does not go to disk).
     */
    public function testAPeekedLargeStreamSendsTheBufferThenTheRestUnbuffered(): void
    {
        $chunk = \str_repeat('x', 600_000);
        $stream = BufferedBodyStream::ofResponseBody(new StreamBody(self::generate('head', $chunk, $chunk, 'tail')));
        self::assertSame('he', $stream->read(2));

        $body = $stream->toResponseBody();

        self::assertInstanceOf(StreamBody::class, $body);
        self::assertNull($body->getLength(), 'unknown, as the original');
        $sent = \iterator_to_array($body->getChunks(), false);
        self::assertSame(['head', $chunk, $chunk, 'tail'], $sent);
        $this->expectException(\RuntimeException::class);
        $stream->read(1); // handed over to the connection
    }

    /** Read, then closed by the middleware: the generator was started, the original is not sent cut. */
    public function testAReadAndClosedGeneratorIsNotSentCut(): void
    {
        $stream = BufferedBodyStream::ofResponseBody(new StreamBody(self::generate('ab', 'cd')));
        $stream->read(1);
        $stream->close();

        self::assertTrue($stream->replacesOriginal());
        self::assertSame('', $stream->toResponseBody(), 'closed: the bytes are gone, none are sent rather than a cut body');
    }

    public function testAStringIsReplacedOnlyWhenWrittenTo(): void
    {
        $stream = BufferedBodyStream::ofString('<p>x</p>');
        self::assertSame('<p>x</p>', (string) $stream);
        self::assertFalse($stream->replacesOriginal(), 'reading a string uses nothing up');
        $stream->seek(3);
        $stream->write('y');
        self::assertSame(['<p>y</p>', 4], [$stream->toResponseBody(), $stream->tell()]);
    }

    public function testAWriteToAPartlyReadGeneratorGoesWhereTheMiddlewareSeeked(): void
    {
        $stream = BufferedBodyStream::ofResponseBody(new StreamBody(self::generate('ab', 'cd', 'ef'), 6));
        $stream->read(1);
        $stream->seek(0, \SEEK_END);
        $stream->write('!');
        self::assertSame('abcdef!', $stream->toResponseBody());
    }

    public function testDetachGivesAllTheBytesAtThePosition(): void
    {
        $stream = BufferedBodyStream::ofResponseBody(new StreamBody(self::generate('ab', 'cd')));
        $stream->read(1);
        $resource = $stream->detach();
        self::assertIsResource($resource);
        self::assertSame('bcd', \stream_get_contents($resource));
        self::assertNull($stream->getSize());
        self::assertFalse($stream->isReadable());
    }

    /** A request's spooled body is shared: read from the view's own offset, never closed for its owner. */
    public function testASharedStreamIsNotMovedForItsOwner(): void
    {
        $owner = \fopen('php://temp', 'w+b') ?: self::fail('php://temp');
        \fwrite($owner, 'spooled body');
        \fseek($owner, 3);
        $stream = BufferedBodyStream::ofSharedStream($owner);

        self::assertSame([12, 'spooled body'], [$stream->getSize(), (string) $stream]);
        $stream->close();
        self::assertIsResource($owner);
        \rewind($owner);
        self::assertSame('spooled body', \stream_get_contents($owner));
    }
}
