<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http\Psr;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\ClosureHandler;
use Petrel\Http\FileBody;
use Petrel\Http\HttpException;
use Petrel\Http\Psr\PetrelRequestHandler;
use Petrel\Http\Psr\PsrConverter;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use PHPUnit\Framework\TestCase;

/** What a PSR-15 app sees of a request, beside what php-fpm's superglobals would give it. */
final class PsrConverterTest extends TestCase
{
    /** A form's unfilled file input: UPLOAD_ERR_NO_FILE, as in $_FILES (it was a 500). */
    public function testAnEmptyFileInputIsNoFileNotAnError(): void
    {
        $body = "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nx\r\n"
            . "--b\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"\"\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--b--\r\n";
        $psr = (new PsrConverter())->toPsrRequest(Request::create('POST', '/', ['Content-Type' => 'multipart/form-data; boundary=b'], $body));
        $file = $psr->getUploadedFiles()['attachment'] ?? null;
        self::assertInstanceOf(\Psr\Http\Message\UploadedFileInterface::class, $file);
        self::assertSame(\UPLOAD_ERR_NO_FILE, $file->getError());
        self::assertSame(['title' => 'x'], $psr->getParsedBody());
    }

    /** Read whole, a PSR app's download had to fit in the worker's memory_limit. */
    public function testALargeResponseBodyIsStreamedFromThePsrStream(): void
    {
        $path = \tempnam(\sys_get_temp_dir(), 'petrel-psr-body-') ?: self::fail('tempnam');
        $bytes = \str_repeat('0123456789abcdef', 131072) . 'end'; // 2 MiB and a bit
        \file_put_contents($path, $bytes);
        try {
            $factory = new Psr17Factory();
            $psr = $factory->createResponse(200)->withHeader('Content-Type', 'application/zip')->withBody($factory->createStreamFromFile($path));

            $body = (new PsrConverter())->fromPsrResponse($psr)->getBody();

            self::assertInstanceOf(StreamBody::class, $body);
            self::assertSame(\strlen($bytes), $body->getLength());
            $sent = '';
            $chunks = 0;
            foreach ($body->getChunks() as $chunk) {
                $sent .= $chunk;
                $chunks++;
            }
            self::assertSame($bytes, $sent);
            self::assertGreaterThan(1, $chunks);
        } finally {
            \unlink($path);
        }
    }

    public function testASmallResponseBodyIsAString(): void
    {
        $factory = new Psr17Factory();
        $psr = $factory->createResponse(201)->withBody($factory->createStream('created'));

        self::assertSame('created', (new PsrConverter())->fromPsrResponse($psr)->getBody());
    }

    /** At the limit: 1 MiB is still a string, a byte more is streamed with its length. */
    public function testTheStringLimitIsOneMebibyte(): void
    {
        $factory = new Psr17Factory();
        $converter = new PsrConverter();
        $atLimit = \str_repeat('x', 1024 * 1024);
        self::assertSame($atLimit, $converter->fromPsrResponse($factory->createResponse(200)->withBody($factory->createStream($atLimit)))->getBody());
        $body = $converter->fromPsrResponse($factory->createResponse(200)->withBody($factory->createStream($atLimit . 'y')))->getBody();
        self::assertInstanceOf(StreamBody::class, $body);
        self::assertSame(1024 * 1024 + 1, $body->getLength());
        self::assertSame($atLimit . 'y', \implode('', \iterator_to_array($body->getChunks(), false)));
    }

    public function testTheUriComesFromTheTargetTheHostOnlyNamesTheHost(): void
    {
        $converter = new PsrConverter();
        $psr = $converter->toPsrRequest(new Request('GET', '/a/b?c=1', '1.1', ['host' => ['app.example:8080']], '', [], '[2001:db8::1]:5678'));
        self::assertSame(['app.example', 8080, '/a/b', 'c=1'], [$psr->getUri()->getHost(), $psr->getUri()->getPort(), $psr->getUri()->getPath(), $psr->getUri()->getQuery()]);
        self::assertSame('2001:db8::1', $psr->getServerParams()['REMOTE_ADDR'], 'without brackets, as php-fpm has it (FILTER_VALIDATE_IP takes it)');
        self::assertSame('localhost', $converter->toPsrRequest(new Request('GET', '/', '1.1', ['host' => ['']]))->getUri()->getHost(), 'an empty Host is allowed');

        $this->expectException(HttpException::class);
        $this->expectExceptionMessage('Invalid Host header');
        $converter->toPsrRequest(new Request('GET', '/', '1.1', ['host' => ['app.example:99999']]));
    }

    /**
     * PSR-15 middleware read REMOTE_PORT, SERVER_NAME, QUERY_STRING, HTTP_* … from the
     * server params: they had REQUEST_METHOD, REQUEST_URI, SERVER_PROTOCOL, REMOTE_ADDR only.
     */
    public function testServerParamsAreThoseOfPhpFpm(): void
    {
        $request = new Request('POST', '/a?b=1', '1.1', [
            'host' => ['app.example:8080'],
            'content-type' => ['application/json'],
            'x-forwarded-for' => ['203.0.113.9'],
            'x_forwarded_for' => ['6.6.6.6'],
            'accept' => ['text/html', 'application/json'],
        ], '{}', [], '192.0.2.1:54321');
        $before = \microtime(true);

        $server = (new PsrConverter())->toPsrRequest($request)->getServerParams();

        $expected = [
            'REQUEST_METHOD' => 'POST', 'REQUEST_URI' => '/a?b=1', 'QUERY_STRING' => 'b=1', 'SERVER_PROTOCOL' => 'HTTP/1.1',
            'SCRIPT_NAME' => '', 'SERVER_NAME' => 'app.example', 'SERVER_PORT' => '8080', 'REMOTE_ADDR' => '192.0.2.1',
            'REMOTE_PORT' => '54321', 'HTTP_HOST' => 'app.example:8080', 'CONTENT_TYPE' => 'application/json',
            'HTTP_X_FORWARDED_FOR' => '203.0.113.9', 'HTTP_ACCEPT' => 'text/html, application/json',
        ];
        foreach ($expected as $name => $value) {
            self::assertSame($value, $server[$name] ?? null, $name);
        }
        self::assertGreaterThanOrEqual($before, $server['REQUEST_TIME_FLOAT']);
        self::assertSame((int) $server['REQUEST_TIME_FLOAT'], $server['REQUEST_TIME']);
        self::assertArrayNotHasKey('HTTPS', $server, 'plain HTTP: TLS ends at a proxy');
    }

    /** A PSR app in front of a Petrel handler (PetrelRequestHandler): its parsed body reaches the handler. */
    public function testAPetrelHandlerBehindPsrGetsTheParsedBodyAndQuery(): void
    {
        $handler = new PetrelRequestHandler(new ClosureHandler(
            static fn (Request $r) => Response::json([$r->getParsedBody(), $r->getQuery(), $r->getCookies()]),
        ));
        $factory = new Psr17Factory();
        $psr = $factory->createServerRequest('POST', 'http://app.example/?q=1')
            ->withParsedBody(['name' => 'Ada'])
            ->withCookieParams(['c' => 'v']);

        self::assertSame('[{"name":"Ada"},{"q":"1"},{"c":"v"}]', (string) $handler->handle($psr)->getBody());
    }

    /**
     * A file body converted to PSR-7 is opened only when read (header-only middleware costs
     * no open()), reads as its bytes, and converts back to the FileBody itself.
     */
    public function testAFileBodyIsOpenedOnlyWhenRead(): void
    {
        $path = \tempnam(\sys_get_temp_dir(), 'petrel-psr-file-') ?: self::fail('tempnam');
        \file_put_contents($path, 'abcdef');
        $converter = new PsrConverter();
        $body = new FileBody($path, 1, 4);
        $psr = $converter->toPsrResponse(new Response(200, [], $body))->getBody();
        self::assertSame($body, $converter->fromPsrBody($psr));
        self::assertSame('bcde', (string) $psr);
        self::assertSame($body, $converter->fromPsrBody($psr), 'reading it did not use it up');
        $unread = $converter->toPsrResponse(new Response(200, [], $body))->getBody();
        \unlink($path);
        self::assertSame(4, $unread->getSize());
        $this->expectException(\RuntimeException::class);
        $unread->read(1);
    }

    /** Converting a large file body, and a middleware peeking at it, reads only what is asked. */
    public function testALargeFileBodyIsNotReadIntoMemory(): void
    {
        $path = \tempnam(\sys_get_temp_dir(), 'petrel-psr-large-') ?: self::fail('tempnam');
        try {
            $handle = \fopen($path, 'wb') ?: self::fail('fopen');
            for ($i = 0; $i < 16; $i++) {
                \fwrite($handle, \str_repeat(\chr(65 + $i), 1024 * 1024));
            }
            \fclose($handle);
            $converter = new PsrConverter();
            $file = Response::file($path);
            \memory_reset_peak_usage();
            $before = \memory_get_peak_usage();

            $psr = $converter->toPsrResponse($file);
            $psr->getBody()->seek(15 * 1024 * 1024);
            $peek = $psr->getBody()->read(4);
            $back = $converter->fromPsrResponse($psr->withHeader('ETag', '"x"'));

            self::assertSame('PPPP', $peek);
            self::assertSame($file->getBody(), $back->getBody());
            self::assertLessThan(512 * 1024, \memory_get_peak_usage() - $before);
        } finally {
            \unlink($path);
        }
    }

    /**
     * The bridge keeps what PSR-7 cannot carry (after-send callbacks, Cookie objects) for
     * a response made from the converted one, whatever with*() changed, body included (a
     * gzip lost them); not for one built from scratch, nor for another conversion's.
     */
    public function testDescendsFromTellsACopyOfTheConvertedResponseFromAnyOther(): void
    {
        $converter = new PsrConverter();
        $factory = new Psr17Factory();
        $converted = $converter->toPsrResponse(Response::text('page')->withHeader('X-A', '1'));
        $copy = $converted->withHeader('X-B', '2')->withStatus(201)->withBody($factory->createStream('gz'))->withoutHeader('X-A')->withAddedHeader('X-C', '3')->withProtocolVersion('1.0');
        $scratch = $factory->createResponse(200)->withHeader('X-A', '1')->withHeader('Content-Type', 'text/plain; charset=utf-8')->withBody($converted->getBody());

        self::assertTrue($converter->descendsFrom($converted, $converted));
        self::assertTrue($converter->descendsFrom($copy, $converted));
        self::assertFalse($converter->descendsFrom($scratch, $converted));
        self::assertFalse($converter->descendsFrom($converter->toPsrResponse(Response::text('page')->withHeader('X-A', '1')), $converted));
        self::assertSame([201, '1.0', ['X-B' => ['2'], 'X-C' => ['3']], 'gz'], [$copy->getStatusCode(), $copy->getProtocolVersion(), \array_diff_key($copy->getHeaders(), ['Content-Type' => 0]), (string) $copy->getBody()]);
        self::assertSame($converted, $converted->withBody($converted->getBody()), 'unchanged is the same object, as nyholm\'s: the bridge takes that for "returned as is"');
        self::assertSame('1', $converted->getHeaderLine('x-a'));
        self::assertSame(['1'], $converted->getHeader('X-A'));
        self::assertTrue($converted->hasHeader('x-a'));
        self::assertSame('OK', $converted->getReasonPhrase());
    }
}
