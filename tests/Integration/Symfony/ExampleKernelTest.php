<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Symfony;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Symfony\KernelHandler;
use Petrel\Tests\Unit\Symfony\SkipsWithoutSymfony;
use PHPUnit\Framework\TestCase;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;

/**
 * examples/symfony's full-stack kernel (FrameworkBundle, Twig, forms) through KernelHandler,
 * in memory: services reset after each request, Symfony's own error pages, trusted proxies.
 */
final class ExampleKernelTest extends TestCase
{
    use SkipsWithoutSymfony;

    /** The example's classes, named by string: its autoloader is not the project's. */
    private const KERNEL = 'App\\Kernel';
    private const JOURNAL = 'App\\Service\\RequestJournal';

    private static ?KernelHandler $handler = null;
    private static string $varDir = '';
    /** @var array{mixed, mixed} the error and exception handlers before the kernel's */
    private static array $phpHandlers = [null, null];

    public static function setUpBeforeClass(): void
    {
        if (!\class_exists(\Symfony\Bundle\FrameworkBundle\FrameworkBundle::class)) {
            return;
        }
        require_once __DIR__ . '/../../../examples/symfony/autoload.php';
        self::$phpHandlers = [self::currentHandler('error'), self::currentHandler('exception')];
        self::$varDir = \sys_get_temp_dir() . '/petrel-sf-kernel-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        $_SERVER['APP_VAR_DIR'] = self::$varDir;
        $_SERVER['TRUSTED_PROXIES'] = '127.0.0.1,REMOTE_ADDR';
        try {
            $kernel = (new \ReflectionClass(self::exampleClass(self::KERNEL)))->newInstance('prod', false);
            self::assertInstanceOf(\Symfony\Component\HttpKernel\KernelInterface::class, $kernel);
            self::$handler = new KernelHandler($kernel);
        } finally {
            unset($_SERVER['APP_VAR_DIR'], $_SERVER['TRUSTED_PROXIES']);
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$handler = null;
        // The kernel installed Symfony's ErrorHandler for the whole process: left there, it
        // would print its error page from the fatal errors that later tests cause on purpose
        // (its shutdown function acts only while it is the exception handler).
        foreach (['error', 'exception'] as $i => $kind) {
            for ($limit = 20; $limit > 0 && self::currentHandler($kind) !== self::$phpHandlers[$i]; $limit--) {
                $kind === 'error' ? \restore_error_handler() : \restore_exception_handler();
            }
        }
        if (\class_exists(SymfonyRequest::class)) {
            SymfonyRequest::setTrustedProxies([], 0);
        }
        if (self::$varDir !== '') {
            \exec('rm -rf ' . \escapeshellarg(self::$varDir));
        }
    }

    protected function setUp(): void
    {
        self::requireSymfony();
    }

    public function testTwigPageAndJson(): void
    {
        $page = $this->get('/');
        self::assertSame(200, $page->getStatus());
        self::assertStringContainsString('<h1>Hello, Symfony on Petrel!</h1>', self::body($page));

        $json = $this->get('/api/hello?name=Ada');
        self::assertSame('application/json', $json->getHeader('Content-Type'));
        self::assertSame('{"message":"Hello, Ada!"}', $json->getBody());
    }

    public function testFormSubmission(): void
    {
        $response = $this->handler()->handle(Request::create('POST', '/greet', ['Content-Type' => 'application/x-www-form-urlencoded'], 'form%5Bname%5D=Grace'));

        self::assertSame(200, $response->getStatus());
        self::assertStringContainsString('<p class="greeting">Hello, Grace!</p>', self::body($response));
    }

    public function testResettableServicesAreResetRightAfterEachRequest(): void
    {
        $first = $this->get('/api/state?id=1');
        self::assertSame('{"entries":["1"]}', $first->getBody());
        self::assertSame(['1'], $this->journalEntries(), 'kept until the response is written');
        foreach ($first->getAfterSend() as $callback) {
            $callback(); // what the connection does once the response is written
        }
        self::assertSame([], $this->journalEntries(), 'reset once the response is out, not when the next request comes');
        self::assertSame('{"entries":["2"]}', $this->get('/api/state?id=2')->getBody());
    }

    public function testAnExceptionBecomesSymfonysErrorPage(): void
    {
        $response = $this->get('/boom');
        self::assertSame(500, $response->getStatus());
        self::assertStringContainsString('Oops! An Error Occurred', self::body($response));
        self::assertStringNotContainsString('Boom: this page fails on purpose', self::body($response), 'no details in prod');

        $missing = $this->get('/no/such/page');
        self::assertSame(404, $missing->getStatus());
        self::assertStringContainsString('404 Not Found', self::body($missing));
        self::assertSame([], $this->journalEntries());
    }

    public function testTrustedProxiesNamingRemoteAddrWorkInAResidentWorker(): void
    {
        $headers = ['X-Forwarded-For' => '203.0.113.9', 'X-Forwarded-Proto' => 'https'];
        $viaProxy = $this->handler()->handle(Request::create('GET', '/api/request', $headers)->withRemoteAddress('198.51.100.7:4000'));
        $data = \json_decode(self::body($viaProxy), true, flags: \JSON_THROW_ON_ERROR);

        self::assertIsArray($data);
        self::assertSame('203.0.113.9', $data['clientIp']);
        self::assertTrue($data['secure']);
    }

    public function testStreamedAndFileResponses(): void
    {
        $stream = $this->get('/stream');
        self::assertSame(\implode('', \array_map(static fn (int $i): string => "line {$i}\n", \range(1, 1000))), $stream->getBody());

        $range = $this->handler()->handle(Request::create('GET', '/download', ['Range' => 'bytes=0-5']));
        self::assertSame(206, $range->getStatus());
        self::assertStringStartsWith('bytes 0-5/', (string) $range->getHeader('Content-Range'));
    }

    private function get(string $target): Response
    {
        return $this->handler()->handle(Request::create('GET', $target)->withRemoteAddress('127.0.0.1:5555'));
    }

    private function handler(): KernelHandler
    {
        return self::$handler ?? self::fail('the kernel did not boot');
    }

    /** @return array<mixed> what the example's RequestJournal service holds now */
    private function journalEntries(): array
    {
        $kernel = $this->handler()->getKernel();
        self::assertInstanceOf(\Symfony\Component\HttpKernel\KernelInterface::class, $kernel);
        $journal = $kernel->getContainer()->get(self::JOURNAL);
        self::assertIsObject($journal);
        self::assertTrue(\method_exists($journal, 'entries'));

        return (array) $journal->entries();
    }

    /** @return class-string */
    private static function exampleClass(string $name): string
    {
        self::assertTrue(\class_exists($name), "{$name} is not loadable");

        return $name;
    }

    private static function body(Response $response): string
    {
        $body = $response->getBody();
        self::assertIsString($body);

        return $body;
    }

    /** The error or exception handler in place now (PHP has no getter for them before 8.5). */
    private static function currentHandler(string $kind): mixed
    {
        if ($kind === 'error') {
            $handler = \set_error_handler(static fn (): bool => false);
            \restore_error_handler();
        } else {
            $handler = \set_exception_handler(static function (): void {
            });
            \restore_exception_handler();
        }

        return $handler;
    }
}
