<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;

/** examples/sleep.php with ONE worker: coroutine mode overlaps the waits, sync mode queues them. */
final class ModesTest extends AsyncTestCase
{
    private const APP = __DIR__ . '/../../examples/sleep.php';

    public function testCoroutineModeServes500ConcurrentSleepsAtOnce(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--mode=coroutine']))->start();
        $elapsed = $this->async(static fn (): float => self::burst($server->address, 500, 200), 30.0);
        self::assertLessThan(2.0, $elapsed, '500 × 200 ms on one worker');
        self::assertSame(0, $server->stop());
    }

    public function testSyncModeServesOneRequestAtATime(): void
    {
        $sync = (new PetrelProcess(self::APP, ['--workers=1', '--mode=sync']))->start();
        $coroutine = (new PetrelProcess(self::APP, ['--workers=1', '--mode=coroutine']))->start();
        [$syncTime, $coroutineTime] = $this->async(static fn (): array => [
            self::burst($sync->address, 10, 100),
            self::burst($coroutine->address, 10, 100),
        ], 30.0);
        self::assertGreaterThanOrEqual(0.95, $syncTime, '10 × 100 ms in sync mode take their serial sum');
        self::assertLessThan(0.5, $coroutineTime, 'the same 10 requests overlap in coroutine mode');
        self::assertSame(0, $sync->stop());
        self::assertSame(0, $coroutine->stop());
    }

    public function testExampleValidatesItsInput(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1']))->start();
        $this->async(static function () use ($server): void {
            self::assertSame('slept 5', RawHttp::get($server->address, '/?ms=5')->body);
            self::assertSame(400, RawHttp::get($server->address, '/?ms=abc')->status);
        });
        self::assertSame(0, $server->stop());
    }

    private static function burst(string $address, int $count, int $ms): float
    {
        $start = \microtime(true);
        $requests = [];
        for ($i = 0; $i < $count; $i++) {
            $requests[] = go(static fn () => RawHttp::get($address, "/?ms={$ms}")->body);
        }
        foreach ($requests as $request) {
            self::assertSame("slept {$ms}", $request->join());
        }

        return \microtime(true) - $start;
    }
}
