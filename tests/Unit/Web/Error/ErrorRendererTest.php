<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Error;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Web\Error\ErrorRenderer;
use Petrel\Web\Error\HttpError;
use Petrel\Web\Error\MethodNotAllowed;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Error\UnprocessableEntity;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(ErrorRenderer::class)]
#[CoversClass(HttpError::class)]
final class ErrorRendererTest extends TestCase
{
    private const JSON = ['Accept' => 'application/json'];

    /** @return iterable<string, array{array<string, string>, bool}> */
    public static function acceptHeaders(): iterable
    {
        yield 'no accept' => [[], false];
        yield 'json' => [['Accept' => 'application/json'], true];
        yield 'problem+json' => [['Accept' => 'application/problem+json'], true];
        yield 'vnd +json' => [['Accept' => 'application/vnd.api+json; charset=utf-8'], true];
        yield 'browser' => [['Accept' => 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'], false];
        yield 'wildcard' => [['Accept' => '*/*'], false];
        yield 'json then wildcard' => [['Accept' => 'application/json, */*'], true];
        yield 'html first on tie' => [['Accept' => 'text/html, application/json'], false];
        yield 'json first on tie' => [['Accept' => 'application/json, text/html'], true];
        yield 'html q lower' => [['Accept' => 'text/html;q=0.5, application/json'], true];
        yield 'json q lower' => [['Accept' => 'application/json;q=0.4, text/html'], false];
        yield 'json refused' => [['Accept' => 'application/json;q=0'], false];
        yield 'case and spaces' => [['Accept' => ' Application/JSON ; Q=0.9 '], true];
        yield 'xhr' => [['X-Requested-With' => 'XMLHttpRequest'], true];
        yield 'xhr lower case' => [['X-Requested-With' => 'xmlhttprequest', 'Accept' => 'text/html'], true];
        yield 'plain text' => [['Accept' => 'text/plain'], false];
    }

    /** @param array<string, string> $headers */
    #[DataProvider('acceptHeaders')]
    public function testNegotiatesJsonOrHtml(array $headers, bool $json): void
    {
        $request = Request::create('GET', '/', $headers);
        self::assertSame($json, ErrorRenderer::prefersJson($request));
        $response = (new ErrorRenderer())->render(new NotFound(), $request, false);
        self::assertSame($json ? 'application/json' : 'text/html; charset=utf-8', $response->getHeader('Content-Type'));
    }

    public function testHttpErrorAsJson(): void
    {
        $response = $this->render(new NotFound(), self::JSON);
        self::assertSame(404, $response->getStatus());
        self::assertSame('{"error":{"status":404,"message":"Not Found"}}', $response->getBody());
    }

    public function testHttpErrorHeadersAreKept(): void
    {
        $response = $this->render(new MethodNotAllowed(['GET', 'POST']));
        self::assertSame(405, $response->getStatus());
        self::assertSame('GET, POST', $response->getHeader('Allow'));

        $response = $this->render(new HttpError(400, '', ['Content-Type' => 'text/plain', 'X-Bad' => "a\r\nInjected: 1", 'X-Ok' => ['1', '2']]));
        self::assertSame('text/html; charset=utf-8', $response->getHeader('Content-Type'));
        self::assertFalse($response->hasHeader('X-Bad'));
        self::assertFalse($response->hasHeader('Injected'));
        self::assertSame('1, 2', $response->getHeader('X-Ok'));
    }

    public function testValidationErrorsAsJson(): void
    {
        $error = new UnprocessableEntity(['email' => ['The email field is required.']], 'The given data was invalid.');
        $response = $this->render($error, self::JSON);
        self::assertSame(422, $response->getStatus());
        self::assertSame(
            ['error' => ['status' => 422, 'message' => 'The given data was invalid.', 'errors' => ['email' => ['The email field is required.']]]],
            $this->decode($response),
        );
    }

    public function testValidationErrorsAsHtml(): void
    {
        $error = new UnprocessableEntity(['name<' => ['Bad <b>name</b>', 'Too "short"']]);
        $html = $this->body($this->render($error));
        self::assertStringContainsString('<title>422 Unprocessable Content</title>', $html);
        self::assertStringContainsString('<li data-field="name&lt;">Bad &lt;b&gt;name&lt;/b&gt;</li>', $html);
        self::assertStringContainsString('<li data-field="name&lt;">Too &quot;short&quot;</li>', $html);
    }

    public function testOtherExceptionsAre500WithoutDetails(): void
    {
        $error = new \RuntimeException('password=hunter2 in /secret/path');
        foreach ([[], self::JSON] as $headers) {
            $response = $this->render($error, $headers);
            self::assertSame(500, $response->getStatus());
            $body = $this->body($response);
            self::assertStringContainsString('Internal Server Error', $body);
            self::assertStringNotContainsString('hunter2', $body);
            self::assertStringNotContainsString('RuntimeException', $body);
            self::assertStringNotContainsString(__FILE__, $body);
        }
        self::assertSame(['error' => ['status' => 500, 'message' => 'Internal Server Error']], $this->decode($this->render($error, self::JSON)));
    }

    public function testHttpErrorHidesItsPreviousWithoutDebug(): void
    {
        $error = new NotFound('No such post', [], new \RuntimeException('SQL: select secret'));
        $body = $this->body($this->render($error));
        self::assertStringContainsString('<p>No such post</p>', $body);
        self::assertStringNotContainsString('secret', $body);
    }

    public function testDebugDetailsAsJson(): void
    {
        $line = __LINE__ + 1;
        $error = new \LogicException('broken', 0, new \InvalidArgumentException('root cause'));
        $json = $this->decode((new ErrorRenderer())->render($error, Request::create('GET', '/', self::JSON), true));
        self::assertIsArray($json['error']);
        self::assertSame(500, $json['error']['status']);
        self::assertSame('Internal Server Error', $json['error']['message']);
        $debug = $json['error']['debug'];
        self::assertIsArray($debug);
        self::assertSame(\LogicException::class, $debug['class']);
        self::assertSame('broken', $debug['message']);
        self::assertSame(__FILE__, $debug['file']);
        self::assertSame($line, $debug['line']);
        self::assertIsList($debug['trace']);
        self::assertStringStartsWith('#0 ', $debug['trace'][0]);
        self::assertIsArray($debug['previous']);
        self::assertSame(\InvalidArgumentException::class, $debug['previous'][0]['class']);
        self::assertSame('root cause', $debug['previous'][0]['message']);
    }

    public function testDebugDetailsAsHtmlAreEscaped(): void
    {
        $error = new \RuntimeException('<script>alert("x")</script>', 0, new \LogicException('a & b'));
        $html = $this->body((new ErrorRenderer())->render($error, Request::create('GET', '/'), true));
        self::assertStringContainsString('<h2>RuntimeException</h2>', $html);
        self::assertStringContainsString('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;', $html);
        self::assertStringNotContainsString('<script>', $html);
        self::assertStringContainsString('<h2>Caused by LogicException</h2><p>a &amp; b</p>', $html);
        self::assertStringContainsString(\htmlspecialchars(__FILE__) . ':', $html);
        self::assertStringContainsString('<pre>#0 ', $html);
    }

    public function testHtmlEscapesThePublicMessage(): void
    {
        $html = $this->body($this->render(new NotFound("No post '<img src=x onerror=alert(1)>'")));
        self::assertStringContainsString('<p>No post &apos;&lt;img src=x onerror=alert(1)&gt;&apos;</p>', $html);
        self::assertStringNotContainsString('<img', $html);
        self::assertStringStartsWith('<!DOCTYPE html>', $html);
        self::assertStringContainsString('<h1>404 Not Found</h1>', $html);
    }

    public function testJsonSurvivesInvalidUtf8(): void
    {
        $response = $this->render(new NotFound("bad \xff byte"), self::JSON);
        self::assertSame("bad \u{FFFD} byte", $this->decode($response)['error']['message'] ?? null);
    }

    /** @param array<string, string> $headers */
    private function render(\Throwable $error, array $headers = []): Response
    {
        return (new ErrorRenderer())->render($error, Request::create('GET', '/', $headers), false);
    }

    private function body(Response $response): string
    {
        $body = $response->getBody();
        self::assertIsString($body);

        return $body;
    }

    /** @return array<mixed> */
    private function decode(Response $response): array
    {
        $data = \json_decode($this->body($response), true, 512, \JSON_THROW_ON_ERROR);
        self::assertIsArray($data);

        return $data;
    }
}
