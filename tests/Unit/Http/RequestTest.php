<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Request;
use Petrel\Http\UploadedFile;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(Request::class)]
final class RequestTest extends TestCase
{
    public function testCreateNormalisesHeadersAndTarget(): void
    {
        $request = Request::create('POST', 'https://example.com:8443/a/b?x=1#frag', ['X-Multi' => ['1', '2']], 'body');
        self::assertSame('/a/b?x=1', $request->getTarget());
        self::assertSame('/a/b', $request->getPath());
        self::assertSame('x=1', $request->getQueryString());
        self::assertSame('example.com:8443', $request->getHeader('host'));
        self::assertSame('4', $request->getHeader('Content-Length'));
        self::assertSame('1, 2', $request->getHeader('x-multi'));
        self::assertSame(['1', '2'], $request->getHeaderValues('X-MULTI'));
        self::assertTrue($request->hasHeader('X-Multi'));
        self::assertFalse($request->hasHeader('X-None'));
        self::assertNull($request->getHeader('X-None'));
        self::assertSame([], $request->getHeaderValues('X-None'));
        self::assertSame('body', $request->getBody());

        $plain = Request::create('GET', '?q=1');
        self::assertSame('/?q=1', $plain->getTarget());
        self::assertSame('localhost', $plain->getHeader('Host'));
        self::assertSame('/', Request::create('GET', 'http://example.com')->getPath());
    }

    public function testHeaderNamesAskedForDoNotGrowMemoryAndAreStillAnsweredRight(): void
    {
        // Request remembers the lower-case key of each name asked for, up to a bound: an app
        // that asks for names built from input must not grow the worker's memory.
        $request = new Request('GET', '/', '1.1', ['x-seen-7' => ['seven'], 'host' => ['h']]);
        $request->getHeader('Host');
        $before = \memory_get_usage();
        for ($i = 0; $i < 20_000; ++$i) {
            self::assertNull($request->getHeader("X-Input-Derived-Name-{$i}"));
            if ($i % 997 === 0) {
                self::assertSame('seven', $request->getHeader('X-Seen-7'));
                self::assertTrue($request->hasHeader('HOST'));
                self::assertSame(['h'], $request->getHeaderValues('Host'));
            }
        }
        self::assertLessThan(512 * 1024, \memory_get_usage() - $before, '20,000 distinct header names');
    }

    public function testQuery(): void
    {
        $request = Request::create('GET', '/s?q=petrel+php&tags[]=a&tags[]=b&user[name]=x&empty=');
        self::assertSame(
            ['q' => 'petrel php', 'tags' => ['a', 'b'], 'user' => ['name' => 'x'], 'empty' => ''],
            $request->getQuery(),
        );
        self::assertSame('petrel php', $request->getQueryParam('q'));
        self::assertSame('fallback', $request->getQueryParam('missing', 'fallback'));
        self::assertSame([], Request::create('GET', '/')->getQuery());
    }

    public function testTooManyQueryParametersIsA400(): void
    {
        $limits = (new HttpLimits())->withMaxFormFields(3);
        $request = new Request('GET', '/?a=1&b=2&c=3&d=4', '1.1', ['host' => ['a']], '', [], null, $limits);
        $this->expectExceptionObject(new HttpException(400, 'Too many form fields'));
        $request->getQuery();
    }

    /** @return iterable<string, array{string, string, int}> query or urlencoded body, where, status */
    public static function formInputPhpWouldWarnAbout(): iterable
    {
        $deep = 'a' . \str_repeat('[a]', 65) . '=1';
        yield 'query nested 65 deep' => [$deep, 'query', 400];
        yield 'query nested 65 deep, brackets encoded' => ['x=1&a' . \str_repeat('%5Ba%5D', 65) . '=1', 'query', 400];
        yield 'query nested 65 deep, appends' => ['a' . \str_repeat('[]', 65) . '=1', 'query', 400];
        yield 'query nested 65 deep, last bracket open' => ['a' . \str_repeat('[a]', 64) . '[a=1', 'query', 400];
        yield 'query with 1,001 variables' => [\implode('&', \array_map(static fn (int $i): string => "v$i=1", \range(1, 1001))), 'query', 400];
        yield 'query with 1,001 empty pairs' => [\str_repeat('&', 1001) . 'a=1', 'query', 400];
        yield 'body nested 65 deep' => [$deep, 'body', 400];
        yield 'body nested 65 deep, brackets encoded' => ['a' . \str_repeat('%5B%5D', 65) . '=1', 'body', 400];
        yield 'body with 1,001 variables' => [\str_repeat('a[]=1&', 1000) . 'a[]=1', 'body', 400];
    }

    /**
     * PHP drops such input and logs a warning every time (max_input_nesting_level,
     * max_input_vars): a client could fill the log. Rejected with 400, nothing logged.
     */
    #[DataProvider('formInputPhpWouldWarnAbout')]
    public function testFormInputPhpWouldWarnAboutIsA400AndLogsNothing(string $data, string $where, int $status): void
    {
        $request = $where === 'query'
            ? new Request('GET', "/?$data", '1.1', ['host' => ['a']])
            : Request::create('POST', '/', ['Content-Type' => 'application/x-www-form-urlencoded'], $data);
        $warnings = [];
        \set_error_handler(static function (int $severity, string $message) use (&$warnings): bool {
            $warnings[] = $message;

            return true;
        });
        try {
            $where === 'query' ? $request->getQuery() : $request->getParsedBody();
            self::fail('expected an HttpException');
        } catch (HttpException $e) {
            self::assertSame($status, $e->getStatus(), $e->getMessage());
        } finally {
            \restore_error_handler();
        }
        self::assertSame([], $warnings);
    }

    public function testNestingUpToTheLimitIsParsed(): void
    {
        $leaf = ['x' => '1'];
        for ($i = 0; $i < 63; ++$i) {
            $leaf = ['a' => $leaf];
        }
        self::assertSame(['a' => $leaf], Request::create('GET', '/?a' . \str_repeat('[a]', 63) . '[x]=1')->getQuery());
        $fields = \implode('&', \array_map(static fn (int $i): string => "v$i=", \range(1, 1000)));
        self::assertCount(1000, Request::create('POST', '/', ['Content-Type' => 'application/x-www-form-urlencoded'], $fields)->getParsedBody());
    }

    public function testCookies(): void
    {
        $request = Request::create('GET', '/', ['Cookie' => ['a=1; b="quoted"; enc=x%20y%3Bz', 'a=2; flag; =nameless; c=']]);
        self::assertSame(['a' => '1', 'b' => 'quoted', 'enc' => 'x y;z', 'c' => ''], $request->getCookies());
        self::assertSame('x y;z', $request->getCookie('enc'));
        self::assertNull($request->getCookie('missing'));
        self::assertSame('d', $request->getCookie('missing', 'd'));
        self::assertSame([], Request::create('GET', '/')->getCookies());
    }

    public function testUrlEncodedBody(): void
    {
        $request = Request::create(
            'POST',
            '/',
            ['Content-Type' => 'application/x-www-form-urlencoded; charset=UTF-8'],
            'name=Ada+Lovelace&langs%5B%5D=en&langs%5B%5D=fr',
        );
        self::assertSame(['name' => 'Ada Lovelace', 'langs' => ['en', 'fr']], $request->getParsedBody());
        self::assertSame([], $request->getUploadedFiles());
        self::assertSame([], Request::create('POST', '/', ['Content-Type' => 'application/json'], '{"a":1}')->getParsedBody());
        self::assertSame([], Request::create('POST', '/', [], 'a=1')->getParsedBody());
    }

    public function testBodyAsStream(): void
    {
        $request = Request::create('POST', '/', [], 'abc');
        $stream = $request->getBodyStream();
        self::assertSame('abc', \stream_get_contents($stream));
        self::assertSame('abc', \stream_get_contents($request->getBodyStream()), 'rewound each time');
        self::assertSame(3, $request->getBodySize());
        self::assertFalse($request->isBodySpooled());

        $spool = \fopen('php://temp', 'w+b');
        self::assertIsResource($spool);
        \fwrite($spool, 'spooled');
        $spooled = new Request('PUT', '/', '1.1', ['host' => ['a']], $spool);
        self::assertTrue($spooled->isBodySpooled());
        self::assertSame('spooled', $spooled->getBody());
        self::assertSame('spooled', \stream_get_contents($spooled->getBodyStream()), 'readable again');
        self::assertSame(7, $spooled->getBodySize());
        self::assertSame(0, \ftell($spooled->getBodyStream()));
    }

    public function testBodyMustBeAStringOrAStream(): void
    {
        $this->expectException(\TypeError::class);
        new Request('GET', '/', '1.1', [], 42); // @phpstan-ignore argument.type
    }

    public function testAttributesAndRemoteAddressAreCopiedOnWrite(): void
    {
        $request = Request::create('GET', '/');
        $with = $request->withAttribute('user', 7)->withAttribute('null', null)->withRemoteAddress('127.0.0.1:1234');
        self::assertNull($request->getAttribute('user'));
        self::assertNull($request->getRemoteAddress());
        self::assertSame(7, $with->getAttribute('user'));
        self::assertNull($with->getAttribute('null', 'default'), 'a stored null is not replaced by the default');
        self::assertSame('default', $with->getAttribute('missing', 'default'));
        self::assertSame(['user' => 7, 'null' => null], $with->getAttributes());
        self::assertSame('127.0.0.1:1234', $with->getRemoteAddress());
        self::assertSame(['null' => null], $with->withoutAttribute('user')->getAttributes());
    }

    /** The form's fields, files and their temp files are cached together: each with*() keeps the others. */
    public function testWithParsedBodyAndWithUploadedFilesReplaceOnePartOfTheForm(): void
    {
        $body = "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\n"
            . "--b\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"a.txt\"\r\n\r\nfile text\r\n--b--\r\n";
        $request = Request::create('POST', '/?x=1', ['Content-Type' => 'multipart/form-data; boundary=b'], $body);

        $replaced = $request->withParsedBody(['json' => true]);
        self::assertSame(['json' => true], $replaced->getParsedBody());
        self::assertSame([], $replaced->getUploadedFiles(), 'the body was not parsed: no files');
        self::assertSame(['title' => 'Hello'], $request->getParsedBody(), 'the original parses its own body');

        $parsedThenReplaced = $request->withParsedBody(['json' => true]);
        self::assertSame(['json' => true], $parsedThenReplaced->getParsedBody());
        $kept = $parsedThenReplaced->getUploadedFiles()['doc'];
        self::assertInstanceOf(UploadedFile::class, $kept, 'files kept');
        self::assertSame('file text', $kept->getContents());

        $fresh = Request::create('POST', '/', ['Content-Type' => 'multipart/form-data; boundary=b'], $body);
        $files = $fresh->withUploadedFiles(['other' => []]);
        self::assertSame(['other' => []], $files->getUploadedFiles());
        self::assertSame(['title' => 'Hello'], $files->getParsedBody(), 'the body is parsed for its fields');
        self::assertInstanceOf(UploadedFile::class, $fresh->getUploadedFiles()['doc'], 'the original unchanged');
        self::assertSame(['title' => 'Hello', 'x' => ['json' => true]], $files->withParsedBody(['title' => 'Hello', 'x' => ['json' => true]])->getParsedBody());
        self::assertSame(['other' => []], $files->withParsedBody([])->getUploadedFiles());
        self::assertSame(['/', 'x=1'], [$request->getPath(), $request->getQueryString()]);
        self::assertSame(['/', 'x=1'], [$replaced->getPath(), $replaced->getQueryString()]);
    }

    public function testKeepAliveForCreatedRequests(): void
    {
        self::assertTrue(Request::create('GET', '/')->isKeepAlive());
        self::assertFalse(Request::create('GET', '/', ['Connection' => 'close'])->isKeepAlive());
        self::assertFalse(Request::create('GET', '/', [], '', '1.0')->isKeepAlive());
        self::assertTrue(Request::create('GET', '/', ['Connection' => 'keep-alive'], '', '1.0')->isKeepAlive());
    }
}
