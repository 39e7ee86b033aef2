<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\MemoryStore;
use Petrel\Web\Session\SessionStore;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(MemoryStore::class)]
final class MemoryStoreTest extends SessionStoreTestCase
{
    private int $now = 1_700_000_000;

    protected function createStore(): SessionStore
    {
        return new MemoryStore(fn (): int => $this->now);
    }

    protected function elapse(SessionStore $store, int $seconds): void
    {
        $this->now += $seconds;
    }

    public function testExpiredSessionsAreSweptSoMemoryDoesNotGrow(): void
    {
        $store = new MemoryStore(fn (): int => $this->now);
        for ($i = 0; $i < MemoryStore::SWEEP_EVERY - 1; $i++) {
            $store->write(SessionId::generate(), ['i' => $i], 10);
        }
        self::assertSame(MemoryStore::SWEEP_EVERY - 1, $store->count());

        $this->now += 11;
        $live = SessionId::generate();
        $store->write($live, ['live' => true], 10);

        self::assertSame(1, $store->count());
        self::assertSame(['live' => true], $store->read($live));
    }

    public function testTheRealClockIsTheDefault(): void
    {
        $store = new MemoryStore();
        $id = SessionId::generate();
        $store->write($id, ['a' => 1], 60);

        self::assertSame(['a' => 1], $store->read($id));
    }
}
