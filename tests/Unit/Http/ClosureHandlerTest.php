<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/**
 * The server calls a closure declared to return a Response directly (typedClosure()); any
 * other closure goes through handle(), which checks what it returns.
 */
#[CoversClass(ClosureHandler::class)]
final class ClosureHandlerTest extends TestCase
{
    public function testOnlyAClosureDeclaredToReturnAResponseIsHandedOver(): void
    {
        $typed = static fn (Request $request): Response => Response::text('typed');
        self::assertSame($typed, (new ClosureHandler($typed))->typedClosure());
        foreach ([
            static fn (Request $request) => Response::text('untyped'),
            static fn (Request $request): object => Response::text('an object'),
        ] as $closure) {
            self::assertNull((new ClosureHandler($closure))->typedClosure());
        }
    }

    public function testHandleStillRejectsWhatIsNotAResponse(): void
    {
        $this->expectException(\UnexpectedValueException::class);
        $untyped = static fn (Request $request): mixed => 'not a response';
        (new ClosureHandler($untyped))->handle(Request::create('GET', '/')); // @phpstan-ignore argument.type (the point)
    }
}
