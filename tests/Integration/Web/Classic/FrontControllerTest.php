<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Classic;

use Petrel\Tests\Support\PetrelProcess;
use Petrel\Web\Classic\FrontController;
use Petrel\Web\Classic\GlobalsRequest;
use Petrel\Web\Classic\SapiEmitter;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/**
 * Classic mode end to end under a real SAPI (`php -S`, where header() takes effect): the
 * request built from the superglobals, the response sent with header() and echo.
 */
#[CoversClass(FrontController::class)]
#[CoversClass(GlobalsRequest::class)]
#[CoversClass(SapiEmitter::class)]
final class FrontControllerTest extends TestCase
{
    private const FIXTURE = __DIR__ . '/fixtures/front.php';

    /** @var resource|null */
    private static $server = null;
    private static string $address = '';
    private static string $log = '';

    public static function setUpBeforeClass(): void
    {
        self::$address = '127.0.0.1:' . PetrelProcess::freePort();
        self::$log = (string) \tempnam(\sys_get_temp_dir(), 'petrel-php-s-');
        self::$server = self::startPhpS(self::$address, self::$log);
    }

    /**
     * `php -S` on $address running the fixture.
     *
     * @param list<string> $phpOptions
     * @param array<string, string>|null $env null: this process's
     * @return resource
     */
    private static function startPhpS(string $address, string $log, array $phpOptions = [], ?array $env = null)
    {
        $process = \proc_open(
            [\PHP_BINARY, ...$phpOptions, '-S', $address, self::FIXTURE],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']],
            $pipes,
            null,
            $env,
        );
        self::assertIsResource($process);
        PetrelProcess::waitFor(static function () use ($process, $address, $log): bool {
            if (!\proc_get_status($process)['running']) {
                throw new \RuntimeException("php -S exited:\n" . @\file_get_contents($log));
            }
            $socket = @\stream_socket_client('tcp://' . $address, $errno, $error, 0.2);
            if ($socket === false) {
                return false;
            }
            \fclose($socket);

            return true;
        }, 10.0, 'php -S to listen');

        return $process;
    }

    /**
     * PETREL_DRIVER is for the server's workers. An environment that sets it for them (to
     * epoll) is often the one php-fpm runs in too, where FFI is off by default: classic mode
     * used to honour it, and DriverFactory refused ("PETREL_DRIVER=epoll cannot work
     * here"), a 500 with an empty body for every request. One request needs no scalable
     * driver: classic mode uses stream_select() whatever PETREL_DRIVER says.
     */
    public function testAServerDriverSetInTheEnvironmentDoesNotBreakClassicMode(): void
    {
        $address = '127.0.0.1:' . PetrelProcess::freePort();
        $log = (string) \tempnam(\sys_get_temp_dir(), 'petrel-php-s-');
        $server = self::startPhpS($address, $log, ['-d', 'ffi.enable=0'], ['PETREL_DRIVER' => 'epoll'] + \getenv());
        try {
            $saved = self::$address;
            self::$address = $address;
            try {
                [$status, , $body] = $this->request("GET /text?name=Ada HTTP/1.1\r\nHost: test\r\n\r\n");
            } finally {
                self::$address = $saved;
            }
            self::assertSame('HTTP/1.1 422 Unprocessable Content', $status, (string) @\file_get_contents($log));
            self::assertSame('hello Ada', $body);
        } finally {
            \proc_terminate($server, \SIGTERM);
            \proc_close($server);
            @\unlink($log);
        }
    }

    public static function tearDownAfterClass(): void
    {
        if (self::$server !== null) {
            \proc_terminate(self::$server, \SIGTERM);
            \proc_close(self::$server);
            self::$server = null;
        }
        @\unlink(self::$log);
    }

    public function testStatusReasonHeadersCookiesAndBodyAreSent(): void
    {
        [$status, $headers, $body] = $this->request("GET /text?name=Ada HTTP/1.1\r\nHost: test\r\n\r\n");

        self::assertSame('HTTP/1.1 422 Unprocessable Content', $status);
        self::assertSame(['a', 'b'], $headers['x-multi']);
        self::assertSame(['text/plain; charset=utf-8'], $headers['content-type']);
        self::assertSame(['flavour=oat%20meal; Path=/; HttpOnly; SameSite=Lax'], $headers['set-cookie']);
        self::assertSame(['9'], $headers['content-length']);
        self::assertSame('hello Ada', $body);
    }

    public function testNoContentTypeIsAddedWhenTheResponseHasNone(): void
    {
        [$status, $headers, $body] = $this->request("GET /bare HTTP/1.1\r\nHost: test\r\n\r\n");

        self::assertSame('HTTP/1.1 200 OK', $status);
        self::assertArrayNotHasKey('content-type', $headers);
        self::assertSame('no type', $body);
    }

    public function testEmptyFileAndStreamBodies(): void
    {
        [$status, , $body] = $this->request("GET /empty HTTP/1.1\r\nHost: test\r\n\r\n");
        self::assertSame('HTTP/1.1 204 No Content', $status);
        self::assertSame('', $body);

        [, $headers, $body] = $this->request("GET /file HTTP/1.1\r\nHost: test\r\n\r\n");
        self::assertSame([(string) \filesize(self::FIXTURE)], $headers['content-length']);
        self::assertSame(\file_get_contents(self::FIXTURE), $body);

        [, , $body] = $this->request("GET /stream HTTP/1.1\r\nHost: test\r\n\r\n");
        self::assertSame('one two three', $this->unchunk($body));
    }

    public function testAHeadRequestGetsTheHeadersWithoutTheBody(): void
    {
        [$status, $headers, $body] = $this->request("HEAD /text HTTP/1.1\r\nHost: test\r\n\r\n");

        self::assertSame('HTTP/1.1 422 Unprocessable Content', $status);
        self::assertSame(['7'], $headers['content-length']);
        self::assertSame('', $body);
    }

    public function testTheRequestComesFromTheSuperglobals(): void
    {
        $form = 'name=Ada+L&tags%5B%5D=x';
        [, , $body] = $this->request("POST /echo HTTP/1.1\r\nHost: test\r\nCookie: a=1; b=two\r\n"
            . "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " . \strlen($form) . "\r\n\r\n{$form}");

        self::assertSame(['method' => 'POST', 'form' => ['name' => 'Ada L', 'tags' => ['x']], 'cookies' => ['a' => '1', 'b' => 'two']], \json_decode($body, true));
    }

    public function testABootFailureIsAPlain500(): void
    {
        [$status, , $body] = $this->request("GET /boot-fails HTTP/1.1\r\nHost: test\r\n\r\n");

        self::assertSame('HTTP/1.1 500 Internal Server Error', $status);
        self::assertSame("500 Internal Server Error\n", $body);
        self::assertStringContainsString('no database', (string) \file_get_contents(self::$log));
    }

    /**
     * The App's error page, and its cause in PHP's error log: the default logger wrote to
     * STDERR, which `php -S` and php-fpm do not define, so every 500 lost its page and its
     * cause ("Undefined constant STDERR").
     */
    public function testAnAppErrorIsRenderedAndItsCauseLogged(): void
    {
        [$status, $headers, $body] = $this->request("GET /app/boom HTTP/1.1\r\nHost: test\r\nAccept: text/html\r\n\r\n");

        self::assertSame('HTTP/1.1 500 Internal Server Error', $status);
        self::assertStringStartsWith('text/html', $headers['content-type'][0] ?? '');
        self::assertStringNotContainsString('route boom', $body, 'not in production');
        $log = (string) \file_get_contents(self::$log);
        self::assertStringContainsString('GET /app/boom failed: RuntimeException: route boom', $log);
        self::assertStringNotContainsString('STDERR', $log);
    }

    public function testAfterSendCallbacksRunOnceTheResponseIsOutAndAFailureIsLogged(): void
    {
        [$status, , $body] = $this->request("GET /after-send HTTP/1.1\r\nHost: test\r\n\r\n");

        self::assertSame('HTTP/1.1 200 OK', $status);
        self::assertSame('sent', $body);
        $log = (string) \file_get_contents(self::$log);
        self::assertStringContainsString('after-send ran, headers sent', $log);
        self::assertStringContainsString('petrel classic: after GET /after-send: RuntimeException: after-send failed', $log);
        self::assertStringContainsString('after-send went on', $log);
    }

    /**
     * Sends $raw on a new connection and reads until `php -S` closes it.
     *
     * @return array{string, array<string, list<string>>, string} status line, headers (lowercase names), body
     */
    private function request(string $raw): array
    {
        $socket = \stream_socket_client('tcp://' . self::$address, $errno, $error, 5.0);
        self::assertIsResource($socket, $error);
        \stream_set_timeout($socket, 10);
        \fwrite($socket, $raw);
        $response = (string) \stream_get_contents($socket);
        \fclose($socket);
        [$head, $body] = \explode("\r\n\r\n", $response, 2) + [1 => ''];
        $lines = \explode("\r\n", $head);
        $status = (string) \array_shift($lines);
        $headers = [];
        foreach ($lines as $line) {
            [$name, $value] = \explode(':', $line, 2) + [1 => ''];
            $headers[\strtolower($name)][] = \trim($value);
        }

        return [$status, $headers, $body];
    }

    private function unchunk(string $body): string
    {
        $out = '';
        while (\preg_match('/\A([0-9a-fA-F]+)\r\n/', $body, $match) === 1 && ($size = (int) \hexdec($match[1])) > 0) {
            $out .= \substr($body, \strlen($match[0]), $size);
            $body = \substr($body, \strlen($match[0]) + $size + 2);
        }

        return $out === '' ? $body : $out;
    }
}
