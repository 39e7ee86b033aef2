<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Symfony;

use Petrel\Http\FileBody;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use Petrel\Symfony\Internal\ResponseFactory;
use PHPUnit\Framework\TestCase;
use Symfony\Component\HttpFoundation\BinaryFileResponse;
use Symfony\Component\HttpFoundation\Cookie;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;
use Symfony\Component\HttpFoundation\Response as SymfonyResponse;
use Symfony\Component\HttpFoundation\StreamedResponse;

/** HttpFoundation Response → Petrel Response: plain, streamed and file responses (ranges). */
final class ResponseFactoryTest extends TestCase
{
    use SkipsWithoutSymfony;

    private string $file = '';

    protected function setUp(): void
    {
        self::requireSymfony();
        $this->file = \tempnam(\sys_get_temp_dir(), 'petrel-sf-file-') ?: self::fail('tempnam');
        \file_put_contents($this->file, '0123456789abcdefghij');
    }

    protected function tearDown(): void
    {
        if ($this->file !== '') {
            @\unlink($this->file);
        }
    }

    public function testPlainResponseKeepsStatusHeadersCookiesAndContent(): void
    {
        $symfony = new SymfonyResponse('<p>created</p>', 201, ['Content-Type' => 'text/html', 'X-Multi' => ['a', 'b']]);
        $symfony->headers->setCookie(Cookie::create('sid', 'abc', 0, '/', null, false, true));
        $symfony->headers->setCookie(Cookie::create('theme', 'dark'));

        $response = (new ResponseFactory())->create($symfony, SymfonyRequest::create('/'));

        self::assertSame(201, $response->getStatus());
        self::assertSame('<p>created</p>', $response->getBody());
        self::assertSame('text/html', $response->getHeader('content-type'));
        self::assertSame(['a', 'b'], $response->getHeaders()['X-Multi']);
        self::assertNotNull($response->getHeader('Date'));
        $cookies = $response->getHeaders()['Set-Cookie'];
        self::assertCount(2, $cookies);
        self::assertStringStartsWith('sid=abc; path=/; httponly', $cookies[0]);
        self::assertStringStartsWith('theme=dark;', $cookies[1]);
    }

    public function testStreamedResponseRunsItsCallbackIntoTheBody(): void
    {
        $level = \ob_get_level();
        $symfony = new StreamedResponse(static function (): void {
            echo 'first ';
            \flush();
            echo 'second';
        }, 200, ['Content-Type' => 'text/plain']);

        $response = (new ResponseFactory())->create($symfony, SymfonyRequest::create('/'));

        self::assertSame('first second', $response->getBody());
        self::assertSame('text/plain', $response->getHeader('Content-Type'));
        self::assertSame($level, \ob_get_level());
    }

    public function testALargeStreamedResponseIsSpooledAndSentWithItsLength(): void
    {
        $symfony = new StreamedResponse(static function (): void {
            for ($i = 0; $i < 300; $i++) {
                echo \str_repeat(\chr(65 + $i % 26), 10000);
            }
        });

        $response = (new ResponseFactory())->create($symfony, SymfonyRequest::create('/'));

        $body = $response->getBody();
        self::assertInstanceOf(StreamBody::class, $body);
        self::assertSame(3000000, $body->getLength());
        $bytes = self::drain($response);
        self::assertSame(3000000, \strlen($bytes));
        self::assertSame(\str_repeat('B', 10000), \substr($bytes, 10000, 10000));
    }

    public function testAFailingStreamCallbackRestoresOutputBuffering(): void
    {
        $level = \ob_get_level();
        $streams = \count(\get_resources('stream'));
        $symfony = new StreamedResponse(static function (): void {
            \ob_start(); // left open by the failing callback
            echo 'partial';
            throw new \RuntimeException('stream failed');
        });
        try {
            (new ResponseFactory())->create($symfony, SymfonyRequest::create('/'));
            self::fail('the exception must come through');
        } catch (\RuntimeException $error) {
            self::assertSame('stream failed', $error->getMessage());
        }
        self::assertSame($level, \ob_get_level());
        self::assertCount($streams, \get_resources('stream'), 'the spool is closed');
    }

    /** ob_clean() discards what is buffered; the capture kept it in the body. */
    public function testWhatACallbackCleansIsNotSent(): void
    {
        $symfony = new StreamedResponse(static function (): void {
            echo 'draft';
            \ob_clean();
            echo 'final';
            \ob_flush();
            echo '!';
        });

        self::assertSame('final!', (new ResponseFactory())->create($symfony, SymfonyRequest::create('/'))->getBody());
    }

    public function testACallbackMayEndTheBuffersItStartedItself(): void
    {
        $level = \ob_get_level();
        $symfony = new StreamedResponse(static function (): void {
            echo 'a';
            \ob_start();
            echo 'b';
            \ob_end_flush();
            \ob_start();
            echo 'dropped';
            \ob_end_clean();
            \ob_start();
            echo 'c';
            echo \ob_get_clean();
            \ob_start();
            echo 'd'; // left open
        });

        $response = (new ResponseFactory())->create($symfony, SymfonyRequest::create('/'));

        self::assertSame('abcd', $response->getBody());
        self::assertSame($level, \ob_get_level());
    }

    /**
     * php-fpm idioms that end buffers the callback did not start. $outer stands for the
     * level below the bridge's (0 in a worker; PHPUnit's own buffers must stay).
     *
     * @return iterable<string, array{\Closure(int): void, string}>
     */
    public static function buffersEndedByTheCallback(): iterable
    {
        yield 'ob_end_flush() loop' => [static function (int $outer): void {
            echo 'before ';
            while (\ob_get_level() > $outer) {
                \ob_end_flush();
            }
            echo 'after';
        }, 'after'];
        yield 'ob_end_clean()' => [static function (): void {
            echo 'before ';
            \ob_end_clean();
            echo 'after';
        }, 'after'];
        // The level is back where it was: only the buffer's handler can tell.
        yield 'ob_get_clean(), then a buffer of its own' => [static function (): void {
            echo 'before ';
            \ob_get_clean();
            \ob_start();
            echo 'own, never printed';
        }, ''];
    }

    /** @param \Closure(int): void $callback */
    #[\PHPUnit\Framework\Attributes\DataProvider('buffersEndedByTheCallback')]
    public function testACallbackThatEndsTheCaptureBufferIsAnErrorNotATruncatedBody(\Closure $callback, string $leaked): void
    {
        $streams = \count(\get_resources('stream'));
        \ob_start(); // stands for the worker's stdout
        $outer = \ob_get_level();
        try {
            (new ResponseFactory())->create(new StreamedResponse(static fn () => $callback($outer)), SymfonyRequest::create('/'));
            self::fail('expected an Error');
        } catch (\Error $error) {
            self::assertStringContainsString('StreamedResponse callback ended the output buffer', $error->getMessage());
            self::assertStringContainsString('Use ob_flush()/flush(), do not end output buffers you did not start.', $error->getMessage());
        } finally {
            $level = \ob_get_level();
            $stdout = (string) \ob_get_clean();
        }
        self::assertSame($outer, $level, 'output buffering is back at its level');
        self::assertSame($leaked, $stdout, 'printed after the capture ended; nothing the callback still buffered');
        self::assertCount($streams, \get_resources('stream'), 'the spool is closed');
    }

    public function testBinaryFileResponseIsAFileBody(): void
    {
        $response = (new ResponseFactory())->create(new BinaryFileResponse($this->file, 200, ['Content-Type' => 'text/plain']), SymfonyRequest::create('/'));

        self::assertSame(200, $response->getStatus());
        $body = $response->getBody();
        self::assertInstanceOf(FileBody::class, $body);
        self::assertSame([$this->file, 0, 20], [$body->getPath(), $body->getOffset(), $body->getLength()]);
        self::assertSame('bytes', $response->getHeader('Accept-Ranges'));
    }

    /** @return array<string, array{string, int, ?string, int, int}> */
    public static function ranges(): array
    {
        return [
            'first bytes' => ['bytes=0-3', 206, 'bytes 0-3/20', 0, 4],
            'middle' => ['bytes=10-14', 206, 'bytes 10-14/20', 10, 5],
            'open end' => ['bytes=15-', 206, 'bytes 15-19/20', 15, 5],
            'suffix' => ['bytes=-3', 206, 'bytes 17-19/20', 17, 3],
            'end past the file' => ['bytes=18-99', 206, 'bytes 18-19/20', 18, 2],
        ];
    }

    #[\PHPUnit\Framework\Attributes\DataProvider('ranges')]
    public function testRangeRequestsGetPartialContent(string $range, int $status, ?string $contentRange, int $offset, int $length): void
    {
        $request = SymfonyRequest::create('/file', 'GET', server: ['HTTP_RANGE' => $range]);
        $response = (new ResponseFactory())->create(new BinaryFileResponse($this->file, 200, ['Content-Type' => 'text/plain']), $request);

        self::assertSame($status, $response->getStatus());
        self::assertSame($contentRange, $response->getHeader('Content-Range'));
        $body = $response->getBody();
        self::assertInstanceOf(FileBody::class, $body);
        self::assertSame([$offset, $length], [$body->getOffset(), $body->getLength()]);
        self::assertSame(\substr('0123456789abcdefghij', $offset, $length), self::drain($response));
    }

    public function testAnUnsatisfiableRangeIs416WithoutBody(): void
    {
        $request = SymfonyRequest::create('/file', 'GET', server: ['HTTP_RANGE' => 'bytes=30-40']);
        $response = (new ResponseFactory())->create(new BinaryFileResponse($this->file, 200, ['Content-Type' => 'text/plain']), $request);

        self::assertSame(416, $response->getStatus());
        self::assertSame('bytes */20', $response->getHeader('Content-Range'));
        self::assertSame('', $response->getBody());
    }

    public function testHeadOfAFileHasNoBodyButItsLength(): void
    {
        $response = (new ResponseFactory())->create(new BinaryFileResponse($this->file, 200, ['Content-Type' => 'text/plain']), SymfonyRequest::create('/file', 'HEAD'));

        self::assertSame('', $response->getBody());
        self::assertSame('20', $response->getHeader('Content-Length'));
    }

    public function testDeleteFileAfterSendStreamsTheBytesOfAnAlreadyDeletedFile(): void
    {
        $symfony = (new BinaryFileResponse($this->file, 200, ['Content-Type' => 'text/plain']))->deleteFileAfterSend();
        $request = SymfonyRequest::create('/file', 'GET', server: ['HTTP_RANGE' => 'bytes=2-5']);

        $response = (new ResponseFactory())->create($symfony, $request);

        self::assertFileDoesNotExist($this->file);
        self::assertSame(206, $response->getStatus());
        $body = $response->getBody();
        self::assertInstanceOf(StreamBody::class, $body);
        self::assertSame(4, $body->getLength());
        self::assertSame('2345', self::drain($response));
    }

    /** @return iterable<string, array{string, array<string, string>, int}> */
    public static function bodilessFileAnswers(): iterable
    {
        yield 'HEAD' => ['HEAD', [], 200];
        yield 'unsatisfiable range' => ['GET', ['HTTP_RANGE' => 'bytes=30-40'], 416];
        yield 'not modified' => ['GET', ['HTTP_IF_NONE_MATCH' => '"v1"'], 304];
    }

    /**
     * As BinaryFileResponse::sendContent() does under php-fpm: the file goes whether or not
     * a body is sent (an export answered to a HEAD stayed on disk).
     *
     * @param array<string, string> $server
     */
    #[\PHPUnit\Framework\Attributes\DataProvider('bodilessFileAnswers')]
    public function testDeleteFileAfterSendDeletesTheFileWhenNoBodyIsSent(string $method, array $server, int $status): void
    {
        $request = SymfonyRequest::create('/file', $method, server: $server);
        $symfony = (new BinaryFileResponse($this->file, 200, ['Content-Type' => 'text/plain', 'ETag' => '"v1"']))->deleteFileAfterSend();
        $symfony->isNotModified($request);

        $response = (new ResponseFactory())->create($symfony, $request);

        self::assertSame($status, $response->getStatus());
        self::assertSame('', $response->getBody());
        self::assertFileDoesNotExist($this->file);
    }

    private static function drain(Response $response): string
    {
        $body = $response->getBody();
        if (\is_string($body)) {
            return $body;
        }
        if ($body instanceof FileBody) {
            return (string) \file_get_contents($body->getPath(), false, null, $body->getOffset(), \max(0, $body->getLength()));
        }
        self::assertInstanceOf(StreamBody::class, $body);
        $bytes = '';
        foreach ($body->getChunks() as $chunk) {
            $bytes .= $chunk;
        }

        return $bytes;
    }
}
