<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\WebSocket;

use Petrel\WebSocket\WebSocketError;
use Petrel\WebSocket\WebSocketOptions;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Timeouts are refused where they are given when they could not work: zero, negative and
 * NaN (which passes a "<= 0" check, then breaks the connection's timers far from here).
 */
#[CoversClass(WebSocketOptions::class)]
final class WebSocketOptionsTest extends TestCase
{
    /** @return iterable<string, array{string, float}> */
    public static function badTimeouts(): iterable
    {
        foreach (['idleTimeout', 'closeTimeout', 'handshakeTimeout'] as $name) {
            yield "{$name} zero" => [$name, 0.0];
            yield "{$name} negative" => [$name, -1.0];
            yield "{$name} NaN" => [$name, \NAN];
        }
    }

    #[DataProvider('badTimeouts')]
    public function testATimeoutThatCannotWorkIsRefusedByName(string $name, float $seconds): void
    {
        $this->expectException(WebSocketError::class);
        $this->expectExceptionMessage("Timeouts must be positive; {$name} is");
        new WebSocketOptions(...[$name => $seconds]);
    }

    public function testNoIdleTimeoutAndInfiniteTimeoutsAreAccepted(): void
    {
        $options = new WebSocketOptions(idleTimeout: null, closeTimeout: \INF, handshakeTimeout: \INF);

        self::assertNull($options->idleTimeout);
        self::assertSame(\INF, $options->closeTimeout);
    }
}
