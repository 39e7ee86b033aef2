<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http\Psr;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\HttpException;
use Petrel\Http\Psr\PsrConverter;
use Petrel\Http\Request;
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
}
