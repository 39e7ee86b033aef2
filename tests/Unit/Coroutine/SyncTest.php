<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\CoroutineError;
use Petrel\Coroutine\Mutex;
use Petrel\Coroutine\Semaphore;
use Petrel\Coroutine\TimeoutException;
use Petrel\Coroutine\WaitGroup;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;

final class SyncTest extends AsyncTestCase
{
    public function testWaitGroupWaitsForAll(): void
    {
        $this->async(function (): void {
            $group = new WaitGroup();
            $done = 0;
            for ($i = 1; $i <= 5; $i++) {
                $group->add();
                go(static function () use ($group, $i, &$done): void {
                    sleep($i / 1000);
                    $done++;
                    $group->done();
                });
            }
            $group->wait();
            self::assertSame(5, $done);
            self::assertSame(0, $group->count());
            $group->wait(); // nothing pending: returns at once
        });
    }

    public function testWaitGroupTimeoutAndUnderflow(): void
    {
        $this->async(function (): void {
            $group = new WaitGroup();
            $group->add();
            try {
                $group->wait(0.005);
                self::fail('expected timeout');
            } catch (TimeoutException) {
            }
            $group->done();
            $this->expectException(CoroutineError::class);
            $group->done();
        });
    }

    /** An add() that would go below zero set the count to 0 and left its waiters waiting. */
    public function testAWaitGroupUnderflowLeavesTheCountAsItWas(): void
    {
        $this->async(function (): void {
            $group = new WaitGroup();
            $group->add(2);
            $waiter = go(static fn () => $group->wait());
            try {
                $group->add(-3);
                self::fail('expected a CoroutineError');
            } catch (CoroutineError) {
            }
            self::assertSame(2, $group->count());
            $group->done();
            $group->done();
            $waiter->join(1.0);
            self::assertTrue($waiter->isFinished());
        });
    }

    /** While unlock() hands the mutex to a waiter, it is locked: tryLock() fails, isLocked() said false. */
    public function testAMutexHandedToAWaiterIsLocked(): void
    {
        $this->async(function (): void {
            $mutex = new Mutex();
            $mutex->lock();
            $waiter = go(static fn () => $mutex->synchronized(static fn () => sleep(0.01)));
            $mutex->unlock();
            self::assertFalse($mutex->tryLock());
            self::assertTrue($mutex->isLocked());
            $waiter->join();
            self::assertFalse($mutex->isLocked());
        });
    }

    public function testMutexSerialisesCriticalSections(): void
    {
        $this->async(function (): void {
            $mutex = new Mutex();
            $inside = 0;
            $maxInside = 0;
            $order = [];
            $workers = [];
            for ($i = 0; $i < 4; $i++) {
                $workers[] = go(static function () use ($mutex, &$inside, &$maxInside, &$order, $i): void {
                    $mutex->synchronized(static function () use (&$inside, &$maxInside, &$order, $i): void {
                        $inside++;
                        $maxInside = \max($maxInside, $inside);
                        sleep(0.002);
                        $order[] = $i;
                        $inside--;
                    });
                });
            }
            foreach ($workers as $worker) {
                $worker->join();
            }
            self::assertSame(1, $maxInside);
            self::assertSame([0, 1, 2, 3], $order, 'waiters are served in arrival order');
            self::assertFalse($mutex->isLocked());
        });
    }

    public function testOnlyTheHolderMayUnlock(): void
    {
        $this->async(function (): void {
            $mutex = new Mutex();
            $mutex->lock();
            $error = go(static function () use ($mutex): ?string {
                try {
                    $mutex->unlock();
                } catch (CoroutineError $e) {
                    return $e->getMessage();
                }

                return null;
            })->join();
            self::assertIsString($error);
            self::assertStringContainsString('cannot unlock a mutex held by', $error);
            self::assertFalse($mutex->tryLock());
            $mutex->unlock();
            self::assertTrue($mutex->tryLock());
            $mutex->unlock();
        });
    }

    public function testMutexLockTimeout(): void
    {
        $this->async(function (): void {
            $mutex = new Mutex();
            $holder = go(static fn () => $mutex->synchronized(static fn () => sleep(0.05)));
            try {
                $mutex->lock(0.005);
                self::fail('expected timeout');
            } catch (TimeoutException) {
            }
            $holder->join();
            $mutex->lock();
            $mutex->unlock();
        });
    }

    public function testSemaphoreLimitsConcurrency(): void
    {
        $this->async(function (): void {
            $semaphore = new Semaphore(2);
            $active = 0;
            $peak = 0;
            $workers = [];
            for ($i = 0; $i < 6; $i++) {
                $workers[] = go(static function () use ($semaphore, &$active, &$peak): void {
                    $semaphore->withPermit(static function () use (&$active, &$peak): void {
                        $active++;
                        $peak = \max($peak, $active);
                        sleep(0.002);
                        $active--;
                    });
                });
            }
            foreach ($workers as $worker) {
                $worker->join();
            }
            self::assertSame(2, $peak);
            self::assertSame(2, $semaphore->available());
            $this->expectException(CoroutineError::class);
            $semaphore->release();
        });
    }
}
