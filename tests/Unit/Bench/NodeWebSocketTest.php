<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Load\LoadException;
use Petrel\Bench\Load\NodeWebSocket;
use Petrel\Bench\Measurement;
use PHPUnit\Framework\TestCase;

/** bench/ws-load.mjs output, captured from a real `petrel bench websocket --quick` (fixtures/ws-*.txt). */
final class NodeWebSocketTest extends TestCase
{
    public function testCommandTurnsTheServerUrlIntoAWebSocketUrlWithItsOwnPath(): void
    {
        $load = new NodeWebSocket('/p/bench/ws-load.mjs', 'fanout', '/chat');

        self::assertSame(['node', '/p/bench/ws-load.mjs', 'fanout', 'ws://127.0.0.1:8123/chat', '1000', '5'],
            $load->command('http://127.0.0.1:8123/', 1000, 5, 10.0));
    }

    public function testEchoRun(): void
    {
        $result = (new NodeWebSocket('x', 'echo'))->parse(self::fixture('ws-echo.txt'));

        self::assertEqualsWithDelta(53755.951, $result->requestsPerSecond, 0.001);
        self::assertSame(53764, $result->requests);
        self::assertSame([1.643, 3.036, 8.605], [$result->p50Ms, $result->p90Ms, $result->p99Ms]);
        self::assertSame(0, $result->errors);
        self::assertSame(21.539, $result->extra['max_ms']);
    }

    public function testHoldRunKeepsHowManyConnectionsWereHeld(): void
    {
        $result = (new NodeWebSocket('x', 'hold'))->parse(self::fixture('ws-hold.txt'));

        self::assertSame(1000, $result->requests);
        self::assertSame(1000.0, $result->extra['held']);
        self::assertEqualsWithDelta(3273.94, $result->requestsPerSecond, 0.01); // handshakes/s while opening
    }

    public function testFanoutRunAndItsExtraFiguresReachResultsJson(): void
    {
        $result = (new NodeWebSocket('x', 'fanout', '/chat'))->parse(self::fixture('ws-fanout.txt'));

        self::assertSame(57, $result->requests);
        self::assertSame(14.434, $result->p50Ms);
        $figures = (new Measurement($result, 49.5, 130 * 1048576, 92 * 1048576, 99.9))->toArray();
        self::assertSame(54.045, $figures['max_ms']);
        self::assertSame(56688.072, $figures['deliveries_per_s']);
        self::assertSame(92.0, $figures['start_rss_mb']);
        self::assertSame(99.9, $figures['load_cpu_percent']);
    }

    public function testAFailedRunIsAnError(): void
    {
        $this->expectException(LoadException::class);
        $this->expectExceptionMessage('node ws-load failed: could not open any connection to ws://127.0.0.1:1/ (2 failed)');

        (new NodeWebSocket('x', 'echo'))->parse(self::fixture('ws-refused.txt'));
    }

    public function testOutputWithoutJsonIsAnError(): void
    {
        $this->expectException(LoadException::class);
        $this->expectExceptionMessage('node ws-load printed no result: node:internal/errors:496');

        (new NodeWebSocket('x', 'echo'))->parse("node:internal/errors:496\nError [ERR_MODULE_NOT_FOUND]\n");
    }

    private static function fixture(string $name): string
    {
        return (string) \file_get_contents(__DIR__ . "/fixtures/{$name}");
    }
}
