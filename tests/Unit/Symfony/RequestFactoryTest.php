<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Symfony;

use Petrel\Http\Request;
use Petrel\Symfony\Internal\RequestFactory;
use PHPUnit\Framework\TestCase;
use Symfony\Component\HttpFoundation\File\UploadedFile;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;

/** Petrel Request → HttpFoundation Request, field by field. */
final class RequestFactoryTest extends TestCase
{
    use SkipsWithoutSymfony;

    protected function setUp(): void
    {
        self::requireSymfony();
    }

    protected function tearDown(): void
    {
        if (\class_exists(SymfonyRequest::class)) {
            SymfonyRequest::setTrustedProxies([], 0);
        }
    }

    public function testMethodPathQueryHeadersCookiesAndServerParameters(): void
    {
        $request = (new Request('GET', '/shop/items?page=2&tags[]=a&tags[]=b', '1.1', [
            'host' => ['example.org:8080'],
            'accept' => ['text/html', 'application/json'],
            'cookie' => ['sid=abc%20def', 'theme=dark'],
            'authorization' => ['Basic ' . \base64_encode('ada:secret')],
        ]))->withRemoteAddress('192.0.2.7:51234')->withAttribute('tenant', 'acme');

        $symfony = (new RequestFactory())->create($request);

        self::assertSame('GET', $symfony->getMethod());
        self::assertSame('/shop/items', $symfony->getPathInfo());
        self::assertSame('', $symfony->getBaseUrl());
        self::assertSame('/shop/items?page=2&tags[]=a&tags[]=b', $symfony->getRequestUri());
        self::assertSame(['page' => '2', 'tags' => ['a', 'b']], $symfony->query->all());
        self::assertSame('text/html, application/json', $symfony->headers->get('Accept'));
        self::assertSame(['sid' => 'abc def', 'theme' => 'dark'], $symfony->cookies->all());
        self::assertSame('ada', $symfony->getUser());
        self::assertSame('secret', $symfony->getPassword());
        self::assertSame('acme', $symfony->attributes->get('tenant'));
        self::assertSame('192.0.2.7', $symfony->getClientIp());
        self::assertSame('51234', $symfony->server->get('REMOTE_PORT'));
        self::assertSame('example.org', $symfony->getHost());
        self::assertSame(8080, $symfony->getPort());
        self::assertSame('8080', $symfony->server->get('SERVER_PORT'));
        self::assertSame('example.org', $symfony->server->get('SERVER_NAME'));
        self::assertSame('HTTP/1.1', $symfony->getProtocolVersion());
        self::assertFalse($symfony->isSecure());
        self::assertSame('http://example.org:8080/shop/items?page=2&tags%5B0%5D=a&tags%5B1%5D=b', $symfony->getUri());
        self::assertIsInt($symfony->server->get('REQUEST_TIME'));
        self::assertFalse($symfony->server->has('HTTP_CONTENT_TYPE'));
    }

    public function testIpv6PeerAndHostWithoutPort(): void
    {
        $request = (new Request('GET', '/', '1.1', ['host' => ['[::1]']]))->withRemoteAddress('[::1]:40000');
        $symfony = (new RequestFactory())->create($request);

        self::assertSame('::1', $symfony->getClientIp());
        self::assertSame('[::1]', $symfony->getHost());
        self::assertSame(80, $symfony->getPort());
    }

    public function testAbsoluteFormTargetBecomesOriginForm(): void
    {
        $symfony = (new RequestFactory())->create(new Request('GET', 'http://example.org/a/b?x=1', '1.1', ['host' => ['example.org']]));

        self::assertSame('/a/b?x=1', $symfony->getRequestUri());
        self::assertSame('/a/b', $symfony->getPathInfo());
    }

    public function testUrlEncodedBodyIsParsedAndContentKept(): void
    {
        $body = 'name=Ada&langs[]=php&langs[]=c';
        $request = Request::create('PUT', '/profile', ['Content-Type' => 'application/x-www-form-urlencoded'], $body);
        $symfony = (new RequestFactory())->create($request);

        self::assertSame('PUT', $symfony->getMethod());
        self::assertSame(['name' => 'Ada', 'langs' => ['php', 'c']], $symfony->request->all());
        self::assertSame($body, $symfony->getContent());
        self::assertSame('application/x-www-form-urlencoded', $symfony->headers->get('Content-Type'));
        self::assertSame((string) \strlen($body), $symfony->headers->get('Content-Length'));
        self::assertSame('form', $symfony->getContentTypeFormat());
    }

    public function testJsonBodyIsTheContent(): void
    {
        $request = Request::create('POST', '/api', ['Content-Type' => 'application/json'], '{"a":1}');
        $symfony = (new RequestFactory())->create($request);

        self::assertSame([], $symfony->request->all());
        self::assertSame(['a' => 1], $symfony->toArray());
    }

    public function testSpooledBodyIsAStream(): void
    {
        $stream = \fopen('php://temp', 'w+b');
        self::assertNotFalse($stream);
        \fwrite($stream, \str_repeat('x', 5000));
        $symfony = (new RequestFactory())->create(new Request('POST', '/upload', '1.1', ['host' => ['h'], 'content-length' => ['5000']], $stream));

        self::assertSame(\str_repeat('x', 5000), $symfony->getContent());
    }

    public function testUploadedFilesBecomeSymfonyUploadedFiles(): void
    {
        $boundary = 'XyZ';
        $body = "--{$boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n"
            . "--{$boundary}\r\nContent-Disposition: form-data; name=\"photos[]\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfirst file\r\n"
            . "--{$boundary}\r\nContent-Disposition: form-data; name=\"photos[]\"; filename=\"b.txt\"\r\nContent-Type: text/plain\r\n\r\nsecond\r\n"
            . "--{$boundary}\r\nContent-Disposition: form-data; name=\"empty\"; filename=\"\"\r\nContent-Type: application/octet-stream\r\n\r\n\r\n"
            . "--{$boundary}--\r\n";
        $request = Request::create('POST', '/album', ['Content-Type' => "multipart/form-data; boundary={$boundary}"], $body);
        $symfony = (new RequestFactory())->create($request);

        self::assertSame(['title' => 'Holiday'], $symfony->request->all());
        $photos = $symfony->files->get('photos');
        self::assertIsArray($photos);
        self::assertCount(2, $photos);
        self::assertInstanceOf(UploadedFile::class, $photos[0]);
        self::assertTrue($photos[0]->isValid());
        self::assertSame('a.txt', $photos[0]->getClientOriginalName());
        self::assertSame('text/plain', $photos[0]->getClientMimeType());
        self::assertSame('first file', $photos[0]->getContent());
        self::assertSame('second', $photos[1]->getContent());
        self::assertNull($symfony->files->get('empty'));

        $target = \sys_get_temp_dir() . '/petrel-sf-upload-' . \bin2hex(\random_bytes(4));
        $moved = $photos[1]->move($target, 'b.txt');
        self::assertSame('second', \file_get_contents($moved->getPathname()));
        \unlink($moved->getPathname());
        \rmdir($target);
    }

    public function testTrustedProxiesAsSymfonyDocumentsThem(): void
    {
        $headers = ['host' => ['internal:8080'], 'x-forwarded-for' => ['203.0.113.9, 10.0.0.2'], 'x-forwarded-proto' => ['https'], 'x-forwarded-host' => ['shop.example'], 'x-forwarded-port' => ['443']];
        $factory = new RequestFactory();
        $fromProxy = (new Request('GET', '/', '1.1', $headers))->withRemoteAddress('10.0.0.1:1234');

        // Not trusted: the headers are ignored.
        $untrusted = $factory->create($fromProxy);
        self::assertSame('10.0.0.1', $untrusted->getClientIp());
        self::assertFalse($untrusted->isSecure());

        // framework.trusted_proxies: '10.0.0.0/8' (FrameworkBundle calls this at boot).
        SymfonyRequest::setTrustedProxies(['10.0.0.0/8'], SymfonyRequest::HEADER_X_FORWARDED_FOR | SymfonyRequest::HEADER_X_FORWARDED_PROTO | SymfonyRequest::HEADER_X_FORWARDED_HOST | SymfonyRequest::HEADER_X_FORWARDED_PORT);
        $trusted = $factory->create($fromProxy);
        self::assertSame('203.0.113.9', $trusted->getClientIp());
        self::assertTrue($trusted->isSecure());
        self::assertSame('shop.example', $trusted->getHost());
        self::assertSame('https://shop.example/', $trusted->getUri());
        self::assertSame('172.16.5.5', $factory->create($fromProxy->withRemoteAddress('172.16.5.5:99'))->getClientIp(), 'a peer outside the trusted range');

        // A client's X_Forwarded_For (after the proxy's own) took HTTP_X_FORWARDED_FOR's place.
        $spoofed = (new Request('GET', '/', '1.1', $headers + ['x_forwarded_for' => ['6.6.6.6']]))->withRemoteAddress('10.0.0.1:1234');
        self::assertSame('203.0.113.9', $factory->create($spoofed)->getClientIp());
        self::assertSame('203.0.113.9, 10.0.0.2', $factory->create($spoofed)->headers->get('X-Forwarded-For'));
    }

    public function testGivenServerParametersWin(): void
    {
        $factory = new RequestFactory(['HTTPS' => 'on', 'SERVER_PORT' => '443', 'APP_ENV' => 'prod']);
        $symfony = $factory->create(new Request('GET', '/', '1.1', ['host' => ['example.org']]));

        self::assertTrue($symfony->isSecure());
        self::assertSame('https://example.org/', $symfony->getUri());
        self::assertSame('prod', $symfony->server->get('APP_ENV'));
    }
}
