<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Symfony;

use Petrel\Http\Handlers;
use Petrel\Http\ModePreference;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\ServerConfig;
use Petrel\Symfony\KernelHandler;
use PHPUnit\Framework\TestCase;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;
use Symfony\Component\HttpFoundation\Response as SymfonyResponse;

/** The order of things around a request: handle, convert, then (once it is sent) terminate and reset — also on failure. */
final class KernelHandlerTest extends TestCase
{
    use SkipsWithoutSymfony;

    protected function setUp(): void
    {
        self::requireSymfony();
    }

    public function testHandlersRecogniseAKernelAndItPrefersSyncMode(): void
    {
        $handler = Handlers::from(self::kernel(static fn (): SymfonyResponse => new SymfonyResponse('ok')));

        self::assertInstanceOf(KernelHandler::class, $handler);
        self::assertInstanceOf(ModePreference::class, $handler);
        self::assertSame(ServerConfig::MODE_SYNC, $handler->preferredMode());
        self::assertSame(ServerConfig::MODE_COROUTINE, (new KernelHandler(self::kernel(static fn (): SymfonyResponse => new SymfonyResponse()), concurrent: true))->preferredMode());
    }

    public function testTerminatesWithTheSameRequestAndResponseThenResetsOnceTheResponseIsSent(): void
    {
        $kernel = self::kernel(static fn (SymfonyRequest $request): SymfonyResponse => new SymfonyResponse('hello ' . $request->query->get('name'), 202));
        $response = (new KernelHandler($kernel))->handle(Request::create('GET', '/?name=Ada'));

        self::assertSame(202, $response->getStatus());
        self::assertSame('hello Ada', $response->getBody());
        self::assertSame(['handle /'], $kernel->log, 'kernel.terminate waits for the response to be written');
        self::afterSend($response);
        self::assertSame(['handle /', 'terminate / 202', 'reset'], $kernel->log);
        self::afterSend($response);
        self::assertSame(['handle /', 'terminate / 202', 'reset'], $kernel->log, 'once');
    }

    public function testAResponseRebuiltWithoutItsCallbacksIsTerminatedBeforeTheNextRequest(): void
    {
        $kernel = self::kernel(static fn (SymfonyRequest $request): SymfonyResponse => new SymfonyResponse('ok'));
        $handler = new KernelHandler($kernel);
        $dropped = $handler->handle(Request::create('GET', '/a'));
        $kept = $handler->handle(Request::create('GET', '/b'));

        self::assertSame(['handle /a', 'terminate /a 200', 'reset', 'handle /b'], $kernel->log, 'the next request starts clean');
        self::afterSend($dropped); // late: nothing more
        self::afterSend($kept);
        self::assertSame(['handle /a', 'terminate /a 200', 'reset', 'handle /b', 'terminate /b 200', 'reset'], $kernel->log);
    }

    public function testAConcurrentKernelIsTerminatedAfterEachOfItsResponses(): void
    {
        $kernel = self::kernel(static fn (SymfonyRequest $request): SymfonyResponse => new SymfonyResponse('ok'));
        $handler = new KernelHandler($kernel, concurrent: true);
        $a = $handler->handle(Request::create('GET', '/a'));
        $b = $handler->handle(Request::create('GET', '/b'));
        self::afterSend($b);
        self::afterSend($a);

        self::assertSame(['handle /a', 'handle /b', 'terminate /b 200', 'reset', 'terminate /a 200', 'reset'], $kernel->log, 'each when its response is out, none early');
    }

    public function testResetsAfterAFailureToo(): void
    {
        $kernel = self::kernel(static fn (): never => throw new \LogicException('kernel failed'));
        try {
            (new KernelHandler($kernel))->handle(Request::create('GET', '/x'));
            self::fail('the exception must come through');
        } catch (\LogicException $error) {
            self::assertSame('kernel failed', $error->getMessage());
        }
        self::assertSame(['handle /x', 'reset'], $kernel->log);
    }

    public function testAStreamedCallbackRunsBeforeTheReset(): void
    {
        $kernel = self::kernel(static fn (SymfonyRequest $request, RecordingKernel $kernel): SymfonyResponse => new \Symfony\Component\HttpFoundation\StreamedResponse(static function () use ($kernel): void {
            echo \implode(',', $kernel->log);
        }));
        $response = (new KernelHandler($kernel))->handle(Request::create('GET', '/s'));

        self::assertSame('handle /s', $response->getBody(), 'the callback saw the services before terminate and reset');
    }

    private static function afterSend(Response $response): void
    {
        foreach ($response->getAfterSend() as $callback) {
            $callback();
        }
    }

    /** @param \Closure(SymfonyRequest, RecordingKernel): SymfonyResponse $controller */
    private static function kernel(\Closure $controller): RecordingKernel
    {
        return new RecordingKernel($controller);
    }
}
