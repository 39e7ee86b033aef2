<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\UploadedFile;
use Petrel\Tests\Unit\Web\Routing\Fixtures\PsrCallbackMiddleware;
use Petrel\Web\Internal\PsrNextHandler;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/** What the Petrel handler after a PSR-15 middleware sees of the request that middleware passed on. */
#[CoversClass(PsrNextHandler::class)]
final class PsrMiddlewareRequestTest extends TestCase
{
    private const MULTIPART = "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nx\r\n"
        . "--b\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile bytes\r\n--b--\r\n";


    /** A JSON body-parsing middleware's withParsedBody() (and query, cookies) were dropped. */
    public function testWhatTheMiddlewareParsedOrSetIsWhatTheHandlerGets(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            return $next->handle($request
                ->withParsedBody(\json_decode((string) $request->getBody(), true))
                ->withQueryParams(['page' => '2'] + $request->getQueryParams())
                ->withCookieParams(['session' => 'decrypted']));
        }, static fn (Request $r) => Response::json([$r->getParsedBody(), $r->getQuery(), $r->getCookies(), $r->getBody()]), 'POST');

        $response = $app->handle(Request::create('POST', '/?sort=name', ['Content-Type' => 'application/json', 'Cookie' => 'session=sealed'], '{"name":"Ada"}'));

        self::assertSame([['name' => 'Ada'], ['page' => '2', 'sort' => 'name'], ['session' => 'decrypted'], '{"name":"Ada"}'], \json_decode((string) $response->getBody(), true));
    }

    /** json_decode() without $associative: the handler gets arrays, as getParsedBody() promises. */
    public function testAnObjectParsedBodyBecomesAnArray(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            return $next->handle($request->withParsedBody(\json_decode((string) $request->getBody())));
        }, static fn (Request $r) => Response::text(\var_export($r->getParsedBody(), true)), 'POST');

        $response = $app->handle(Request::create('POST', '/', ['Content-Type' => 'application/json'], '{"user":{"name":"Ada","tags":[{"t":1}]}}'));

        self::assertSame(\var_export(['user' => ['name' => 'Ada', 'tags' => [['t' => 1]]]], true), $response->getBody());
    }

    /**
     * Uploads a middleware passes on are the request's own (not parsed a second time into
     * new temp files); one it adds is a Petrel UploadedFile with its content.
     */
    public function testUploadsReachTheHandlerAsPetrelUploadedFiles(): void
    {
        $request = Request::create('POST', '/', ['Content-Type' => 'multipart/form-data; boundary=b'], self::MULTIPART);
        $seen = [];
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $psr, RequestHandlerInterface $next): ResponseInterface {
            $factory = new Psr17Factory();
            $added = $factory->createUploadedFile($factory->createStream('added bytes'), 11, \UPLOAD_ERR_OK, 'b.txt', 'text/plain');

            return $next->handle($psr->withAttribute('user', 'ada')->withUploadedFiles(['extra' => $added] + $psr->getUploadedFiles()));
        }, static function (Request $r) use (&$seen): Response {
            $seen = $r->getUploadedFiles();

            return Response::json([$r->getParsedBody(), $r->getAttribute('user')]);
        }, 'POST');

        $response = $app->handle($request);

        self::assertSame('[{"title":"x"},"ada"]', $response->getBody());
        self::assertSame($request->getUploadedFiles()['doc'], $seen['doc'] ?? null, 'the same object: one temp file, moveTo() on it works');
        $extra = $seen['extra'] ?? null;
        self::assertInstanceOf(UploadedFile::class, $extra);
        self::assertSame(['added bytes', 'b.txt', 'text/plain', 11], [$extra->getContents(), $extra->getClientFilename(), $extra->getClientMediaType(), $extra->getSize()]);
    }

    /** A PSR-15 middleware moving an upload moves the Petrel one: the handler sees it moved. */
    public function testAnUploadMovedByTheMiddlewareIsMovedForTheHandler(): void
    {
        $target = \sys_get_temp_dir() . '/petrel-psr-moved-' . \bin2hex(\random_bytes(4));
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next) use ($target): ResponseInterface {
            $doc = $request->getUploadedFiles()['doc'];
            \assert($doc instanceof \Psr\Http\Message\UploadedFileInterface);
            $doc->moveTo($target);

            return $next->handle($request->withAttribute('moved', true));
        }, static fn (Request $r) => Response::text(\var_export($r->getUploadedFiles()['doc']->isMoved(), true)), 'POST');
        try {
            $response = $app->handle(Request::create('POST', '/', ['Content-Type' => 'multipart/form-data; boundary=b'], self::MULTIPART));

            self::assertSame('true', $response->getBody());
            self::assertSame('file bytes', \file_get_contents($target));
        } finally {
            @\unlink($target);
        }
    }

    /** An HTTP/1.0 request rebuilt from PSR-7 became HTTP/1.1 (and keep-alive by default). */
    public function testTheProtocolVersionAndRemoteAddressAreKept(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            return $next->handle($request->withAttribute('a', 1));
        }, static fn (Request $r) => Response::text($r->getProtocolVersion() . ' ' . $r->getRemoteAddress() . ' ' . \var_export($r->isKeepAlive(), true)), 'POST');

        $response = $app->handle(new Request('POST', '/', '1.0', ['host' => ['h']], '', [], '10.0.0.1:5'));

        self::assertSame('1.0 10.0.0.1:5 false', $response->getBody());
    }

    /** A body the middleware replaced (a decompression middleware) is the handler's body. */
    public function testABodyTheMiddlewareReplacedIsTheHandlersBody(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $plain = (string) \gzdecode((string) $request->getBody());

            return $next->handle($request->withoutHeader('Content-Encoding')->withBody((new Psr17Factory())->createStream($plain)));
        }, static fn (Request $r) => Response::text($r->getBody() . ' ' . \var_export($r->hasHeader('Content-Encoding'), true)), 'POST');

        $response = $app->handle(Request::create('POST', '/', ['Content-Encoding' => 'gzip'], (string) \gzencode('plain text')));

        self::assertSame('plain text false', $response->getBody());
    }
}
