<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\Error\HttpError;
use Petrel\Web\Session\Csrf;
use Petrel\Web\Session\CsrfMiddleware;
use Petrel\Web\Session\CsrfTokenMismatch;
use Petrel\Web\Session\Session;
use Petrel\Web\Session\SessionError;
use Petrel\Web\Session\SessionMiddleware;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

#[CoversClass(Csrf::class)]
#[CoversClass(CsrfMiddleware::class)]
#[CoversClass(CsrfTokenMismatch::class)]
final class CsrfTest extends AsyncTestCase
{
    private SpyStore $store;

    private Pipeline $app;

    private int $handled = 0;

    protected function setUp(): void
    {
        parent::setUp();
        $this->store = new SpyStore();
        $view = new View(__DIR__ . '/templates');
        $view->addFunction('csrf_field', Csrf::field(...), safeHtml: true);
        $this->app = new Pipeline(
            [new SessionMiddleware($this->store), new CsrfMiddleware(except: ['/webhooks/*', '/ping'])],
            function (Request $request) use ($view): Response {
                $this->handled++;

                return $request->getMethod() === 'GET' && $request->getPath() === '/form'
                    ? $view->response('form.html.twig')
                    : Response::text('done');
            },
        );
    }

    public function testSafeMethodsPassWithoutATokenOrASession(): void
    {
        foreach (['GET', 'HEAD', 'OPTIONS', 'TRACE'] as $method) {
            $response = $this->app->handle(Request::create($method, '/'));
            self::assertSame('done', $response->getBody());
            self::assertSame([], $response->getCookies());
        }
        self::assertSame([], $this->store->calls);
    }

    public function testAFormRenderedWithTheTokenCanBePosted(): void
    {
        [$cookie, $token] = $this->getForm();

        $response = $this->app->handle($this->post('/save', $cookie, '_token=' . \rawurlencode($token) . '&title=x'));

        self::assertSame('done', $response->getBody());
        self::assertSame(2, $this->handled);
    }

    public function testTheTokenCanComeInTheHeader(): void
    {
        [$cookie, $token] = $this->getForm();

        foreach (['PUT', 'PATCH', 'DELETE', 'POST'] as $method) {
            $request = Request::create($method, '/api/item/1', [
                'Cookie' => "petrel_session={$cookie}",
                'X-CSRF-Token' => $token,
                'Content-Type' => 'application/json',
            ], '{"title":"x"}');
            self::assertSame('done', $this->app->handle($request)->getBody(), $method);
        }
    }

    public function testUnsafeRequestsWithoutATokenAreRejected(): void
    {
        [$cookie] = $this->getForm();

        foreach (['POST', 'PUT', 'PATCH', 'DELETE', 'PURGE'] as $method) {
            try {
                $this->app->handle(Request::create($method, '/save', ['Cookie' => "petrel_session={$cookie}"]));
                self::fail("{$method} without a token was accepted");
            } catch (CsrfTokenMismatch $e) {
                self::assertInstanceOf(HttpError::class, $e);
                self::assertSame(403, $e->getStatus());
            }
        }
        self::assertSame(1, $this->handled, 'only the form was handled');
    }

    /** @return iterable<string, array{\Closure(string): string}> */
    public static function wrongTokens(): iterable
    {
        yield 'last character changed' => [static fn (string $t): string => \substr($t, 0, -1) . ($t[-1] === 'A' ? 'B' : 'A')];
        yield 'first character changed' => [static fn (string $t): string => ($t[0] === 'A' ? 'B' : 'A') . \substr($t, 1)];
        yield 'prefix' => [static fn (string $t): string => \substr($t, 0, 20)];
        yield 'extended' => [static fn (string $t): string => $t . 'A'];
        yield 'empty' => [static fn (string $t): string => ''];
        yield 'other case' => [static fn (string $t): string => \strtoupper($t) === $t ? \strtolower($t) : \strtoupper($t)];
    }

    /** @param \Closure(string): string $tamper */
    #[DataProvider('wrongTokens')]
    public function testWrongTokensAreRejectedInTheFormAndInTheHeader(\Closure $tamper): void
    {
        [$cookie, $token] = $this->getForm();
        $wrong = $tamper($token);
        self::assertNotSame($token, $wrong);

        $this->assertRejected($this->post('/save', $cookie, '_token=' . \rawurlencode($wrong)));
        $this->assertRejected(Request::create('POST', '/save', ['Cookie' => "petrel_session={$cookie}", 'X-CSRF-Token' => $wrong]));
    }

    public function testTheHeaderIsCheckedBeforeTheFormField(): void
    {
        [$cookie, $token] = $this->getForm();
        $request = Request::create('POST', '/save', [
            'Cookie' => "petrel_session={$cookie}",
            'X-CSRF-Token' => 'wrong',
            'Content-Type' => 'application/x-www-form-urlencoded',
        ], '_token=' . \rawurlencode($token));

        $this->assertRejected($request);
    }

    public function testANonStringTokenFieldIsRejected(): void
    {
        [$cookie, $token] = $this->getForm();

        $this->assertRejected($this->post('/save', $cookie, '_token[]=' . \rawurlencode($token)));
        $this->assertRejected($this->post('/save', $cookie, '_token[a]=' . \rawurlencode($token)));
    }

    public function testASessionWithoutATokenAcceptsNothing(): void
    {
        $this->assertRejected($this->post('/save', null, '_token='));
        $this->assertRejected(Request::create('POST', '/save', ['X-CSRF-Token' => '']));
        $this->assertRejected($this->post('/save', null, '_token=anything'));
        self::assertSame([], $this->store->callsOf('write'), 'rejecting creates no session');
    }

    public function testATokenFromAnotherSessionIsRejected(): void
    {
        [, $token] = $this->getForm();
        [$otherCookie] = $this->getForm();

        $this->assertRejected($this->post('/save', $otherCookie, '_token=' . \rawurlencode($token)));
    }

    public function testExemptPaths(): void
    {
        foreach (['/webhooks/stripe', '/webhooks/', '/ping'] as $path) {
            self::assertSame('done', $this->app->handle(Request::create('POST', $path))->getBody(), $path);
        }
        foreach (['/ping/more', '/webhooks', '/pingx'] as $path) {
            $this->assertRejected(Request::create('POST', $path));
        }
    }

    public function testTheTokenIsStableUntilRegenerated(): void
    {
        $this->async(function (): void {
            $session = new Session($this->store);
            $request = Request::create('GET', '/')->withAttribute(Session::class, $session);

            $token = Csrf::token($request);
            self::assertMatchesRegularExpression('/^[A-Za-z0-9_-]{43}$/D', $token);
            self::assertSame($token, Csrf::token($request));
            self::assertSame($token, $session->get(Csrf::SESSION_KEY));
            self::assertSame('<input type="hidden" name="_token" value="' . $token . '">', Csrf::field($request));

            $new = Csrf::regenerate($request);
            self::assertNotSame($token, $new);
            self::assertSame($new, Csrf::token($request));
        });
    }

    public function testWithoutSessionMiddlewareItIsMisuse(): void
    {
        $app = new Pipeline([new CsrfMiddleware()], static fn (): Response => Response::text('done'));
        self::assertSame('done', $app->handle(Request::create('GET', '/'))->getBody());

        $this->expectException(SessionError::class);
        $app->handle(Request::create('POST', '/'));
    }

    /** @return array{string, string} session id and the token found in the rendered form */
    private function getForm(): array
    {
        $response = $this->app->handle(Request::create('GET', '/form'));
        $html = $response->getBody();
        self::assertIsString($html);
        self::assertSame(1, \preg_match('~<input type="hidden" name="_token" value="([A-Za-z0-9_-]{43})">~', $html, $m));
        \assert(isset($m[1]));
        $cookie = null;
        foreach ($response->getCookies() as $c) {
            $cookie = $c->name === 'petrel_session' ? $c->value : $cookie;
        }
        self::assertNotNull($cookie, 'rendering the token started a session');

        return [$cookie, $m[1]];
    }

    private function post(string $path, ?string $cookie, string $form): Request
    {
        $headers = ['Content-Type' => 'application/x-www-form-urlencoded'];
        if ($cookie !== null) {
            $headers['Cookie'] = "petrel_session={$cookie}";
        }

        return Request::create('POST', $path, $headers, $form);
    }

    private function assertRejected(Request $request): void
    {
        $handled = $this->handled;
        try {
            $this->app->handle($request);
            self::fail('The request was accepted');
        } catch (CsrfTokenMismatch $e) {
            self::assertSame(403, $e->getStatus());
        }
        self::assertSame($handled, $this->handled, 'the handler did not run');
    }
}
