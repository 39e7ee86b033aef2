<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Observability\LeakCheck;
use Petrel\Web\App;
use Petrel\Web\Container\Container;
use PHPUnit\Framework\TestCase;

final class LeakCheckTest extends TestCase
{
    /** @var list<string> */
    private array $said = [];

    public function testGrowthOfAStaticIsReportedOnceWithTheRequest(): void
    {
        $check = new LeakCheck(new class () implements RequestHandler {
            public function handle(Request $request): Response
            {
                if ($request->getPath() === '/users') {
                    LeakCheckFixture::$cache[] = 'user';
                }

                return Response::text('ok');
            }
        }, $this->report(...));
        LeakCheckFixture::$cache = ['a', 'b', 'c'];
        $check->handle(new Request('GET', '/'));
        self::assertCount(0, $this->said);
        $check->handle(new Request('GET', '/users'));
        $check->handle(new Request('GET', '/users'));
        self::assertCount(1, $this->said);
        self::assertStringStartsWith('GET /users grew ' . LeakCheckFixture::class . '::$cache (static) from 3 to 4 entries', $this->said[0] ?? '');
    }

    public function testANewGlobalAndAGrowingSingletonAreReported(): void
    {
        $container = new Container();
        $container->singleton(LeakCheckService::class);
        $app = new App($container);
        $app->get('/remember', static function (LeakCheckService $service): string {
            $service->seen[] = 1;
            $GLOBALS['petrelLeakCheckTest'] = true;

            return 'ok';
        });
        $check = new LeakCheck($app, $this->report(...));
        $check->handle(new Request('GET', '/remember')); // makes the singleton: warm-up
        $check->handle(new Request('GET', '/remember'));
        unset($GLOBALS['petrelLeakCheckTest']);

        self::assertStringStartsWith('GET /remember created $petrelLeakCheckTest (global)', $this->said[0] ?? '');
        self::assertStringStartsWith('GET /remember grew ' . LeakCheckService::class . '->$seen (singleton in the container) from 1 to 2 entries', $this->said[1] ?? '');
    }

    public function testAThrowingCountableIsSkippedWithoutFailingTheRequestOrTheCheck(): void
    {
        $check = new LeakCheck(new class () implements RequestHandler {
            public function handle(Request $request): Response
            {
                if ($request->getPath() === '/grow') {
                    LeakCheckFixture::$cache[] = 'user';
                }

                return Response::text('ok');
            }
        }, $this->report(...));
        LeakCheckFixture::$cache = [];
        $GLOBALS['petrelLeakCheckThrows'] = new class () implements \Countable {
            public function count(): int
            {
                throw new \RuntimeException('count() not allowed here');
            }
        };
        try {
            $first = $check->handle(new Request('GET', '/'));
            $second = $check->handle(new Request('GET', '/grow'));
            $third = $check->handle(new Request('GET', '/grow'));
        } finally {
            unset($GLOBALS['petrelLeakCheckThrows']);
        }

        self::assertSame([200, 200, 200], [$first->getStatus(), $second->getStatus(), $third->getStatus()]);
        self::assertSame('cannot measure $petrelLeakCheckThrows (global): RuntimeException: count() not allowed here (--leak-check skips it from now on)', $this->said[0] ?? '');
        self::assertStringStartsWith('GET /grow grew ' . LeakCheckFixture::class . '::$cache (static) from 0 to 1 entry', $this->said[1] ?? '', 'the check goes on after a value that cannot be measured');
        self::assertCount(2, $this->said, 'the unmeasurable value is noted once');
    }

    /**
     * An array holding a reference to itself made count() warn "Recursion detected" twice
     * per request: into the APP's error handler, or printed, pointing at LeakCheck.php.
     */
    public function testAnArrayThatHoldsItselfIsMeasuredWithoutAWarning(): void
    {
        $check = new LeakCheck(new class () implements RequestHandler {
            public function handle(Request $request): Response
            {
                if ($request->getPath() === '/grow') {
                    $GLOBALS['petrelLeakCheckSelf'][] = 'more';
                }

                return Response::text('ok');
            }
        }, $this->report(...));
        $GLOBALS['petrelLeakCheckSelf'] = ['first'];
        $GLOBALS['petrelLeakCheckSelf']['self'] = &$GLOBALS['petrelLeakCheckSelf'];
        $warnings = [];
        \set_error_handler(static function (int $level, string $message) use (&$warnings): bool {
            $warnings[] = $message;

            return true;
        });
        try {
            $check->handle(new Request('GET', '/'));
            $check->handle(new Request('GET', '/grow'));
        } finally {
            \restore_error_handler();
            unset($GLOBALS['petrelLeakCheckSelf']);
        }

        self::assertSame([], $warnings, 'the APP\'s error handler hears nothing of the check');
        self::assertStringStartsWith('GET /grow grew $petrelLeakCheckSelf (global) from 2 to 3 entries', $this->said[0] ?? '', 'still measured');
    }

    private function report(string $message): void
    {
        $this->said[] = $message;
    }
}
