<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Symfony;

use Petrel\Http\Handlers;
use Petrel\Http\ModePreference;
use Petrel\Http\Request;
use Petrel\Http\ServerConfig;
use Petrel\Symfony\KernelHandler;
use PHPUnit\Framework\TestCase;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;
use Symfony\Component\HttpFoundation\Response as SymfonyResponse;

/** The order of things around a request: handle, convert, terminate, reset — also on failure. */
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

    public function testTerminatesWithTheSameRequestAndResponseThenResets(): void
    {
        $kernel = self::kernel(static fn (SymfonyRequest $request): SymfonyResponse => new SymfonyResponse('hello ' . $request->query->get('name'), 202));
        $response = (new KernelHandler($kernel))->handle(Request::create('GET', '/?name=Ada'));

        self::assertSame(202, $response->getStatus());
        self::assertSame('hello Ada', $response->getBody());
        self::assertSame(['handle /', 'terminate / 202', 'reset'], $kernel->log);
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

    /** @param \Closure(SymfonyRequest, RecordingKernel): SymfonyResponse $controller */
    private static function kernel(\Closure $controller): RecordingKernel
    {
        return new RecordingKernel($controller);
    }
}
