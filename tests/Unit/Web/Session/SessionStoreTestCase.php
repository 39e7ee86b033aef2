<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\Session\AtomicSessionStore;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\SessionStore;

use function Petrel\go;

/**
 * What every SessionStore must do. Each implementation's test is a subclass that says how to
 * make the store and how to let time pass. Test bodies run inside a coroutine.
 */
abstract class SessionStoreTestCase extends AsyncTestCase
{
    /** Called inside the test's coroutine. */
    abstract protected function createStore(): SessionStore;

    /** Lets $seconds pass for the store (a fake clock, or really waiting). */
    abstract protected function elapse(SessionStore $store, int $seconds): void;

    /** Called inside the test's coroutine after each test body (close connections). */
    protected function disposeStore(SessionStore $store): void
    {
    }

    public function testReadingAnUnknownIdGivesNull(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            self::assertNull($store->read(SessionId::generate()));
        });
    }

    public function testWrittenDataReadsBackTheSame(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            $id = SessionId::generate();
            $data = [
                'data' => [
                    'user' => ['id' => 7, 'name' => 'Zoë 🐦', 'roles' => ['admin', 'editor'], 'active' => true],
                    'ratio' => 0.5,
                    'whole' => 2.0,
                    'none' => null,
                    'empty' => [],
                    'html' => '<a href="/x?y=1&z=2">"q"</a>',
                    'slash' => 'a/b\\c',
                ],
                'flash' => ['notice' => 'Saved!'],
                'at' => 1_700_000_000,
            ];
            $store->write($id, $data, 60);

            self::assertSame($data, $store->read($id));
        });
    }

    public function testWritingReplacesTheData(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            $id = SessionId::generate();
            $store->write($id, ['a' => 1, 'b' => 2], 60);
            $store->write($id, ['c' => 3], 60);

            self::assertSame(['c' => 3], $store->read($id));
        });
    }

    public function testSessionsAreIndependent(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            [$one, $two] = [SessionId::generate(), SessionId::generate()];
            $store->write($one, ['who' => 'one'], 60);
            $store->write($two, ['who' => 'two'], 60);
            $store->destroy($one);

            self::assertNull($store->read($one));
            self::assertSame(['who' => 'two'], $store->read($two));
        });
    }

    public function testDestroyForgetsTheSessionAndIgnoresUnknownIds(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            $id = SessionId::generate();
            $store->write($id, ['a' => 1], 60);
            $store->destroy($id);
            $store->destroy($id);
            $store->destroy(SessionId::generate());

            self::assertNull($store->read($id));
        });
    }

    public function testDataExpiresAfterItsTtlAndAWriteRenewsIt(): void
    {
        $this->withStore(function (SessionStore $store): void {
            [$kept, $dropped] = [SessionId::generate(), SessionId::generate()];
            $store->write($kept, ['a' => 1], 2);
            $store->write($dropped, ['b' => 1], 1);
            $this->elapse($store, 1);
            $store->write($kept, ['a' => 2], 2); // renewed: 2 more seconds from now
            $this->elapse($store, 1);

            self::assertNull($store->read($dropped));
            self::assertSame(['a' => 2], $store->read($kept));
        });
    }

    public function testConcurrentRequestsUseTheStoreAtOnce(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            $ids = [];
            for ($i = 0; $i < 20; $i++) {
                $ids[$i] = SessionId::generate();
            }
            $workers = [];
            foreach ($ids as $i => $id) {
                $workers[$i] = go(static function () use ($store, $id, $i): mixed {
                    $store->write($id, ['n' => $i], 60);
                    $read = $store->read($id);
                    $store->write($id, ['n' => $i, 'again' => true], 60);

                    return $read;
                });
            }
            foreach ($workers as $i => $worker) {
                self::assertSame(['n' => $i], $worker->join());
                self::assertSame(['n' => $i, 'again' => true], $store->read($ids[$i]));
            }
        });
    }

    public function testUpdateReadsChangesAndStoresInOneCall(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            self::assertInstanceOf(AtomicSessionStore::class, $store);
            $id = SessionId::generate();
            $seen = [];
            $change = static function (?array $stored) use (&$seen): array {
                $seen[] = $stored;

                return ['n' => ($stored['n'] ?? 0) + 1];
            };

            self::assertSame(['n' => 1], $store->update($id, $change, 60), 'an unknown id: the change sees null');
            self::assertSame(['n' => 2], $store->update($id, $change, 60));
            self::assertSame([null, ['n' => 1]], $seen);
            self::assertSame(['n' => 2], $store->read($id));

            self::assertNull($store->update($id, static fn (?array $stored): ?array => null, 60), 'null destroys');
            self::assertNull($store->read($id));
            self::assertNull($store->update(SessionId::generate(), static fn (?array $stored): ?array => null, 60));
        });
    }

    public function testAnUpdateRenewsTheTtlAndSeesAnExpiredSessionAsNone(): void
    {
        $this->withStore(function (SessionStore $store): void {
            \assert($store instanceof AtomicSessionStore);
            [$kept, $dropped] = [SessionId::generate(), SessionId::generate()];
            $store->write($kept, ['a' => 1], 2);
            $store->write($dropped, ['b' => 1], 1);
            $this->elapse($store, 1);
            $store->update($kept, static fn (?array $stored): array => ['a' => 2], 2);
            $this->elapse($store, 1);

            self::assertSame(['a' => 2], $store->read($kept));
            $store->update($dropped, static function (?array $stored): array {
                self::assertNull($stored, 'expired');

                return ['b' => 2];
            }, 60);
            self::assertSame(['b' => 2], $store->read($dropped));
        });
    }

    public function testAChangeThatThrowsLeavesTheSessionAsItWas(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            \assert($store instanceof AtomicSessionStore);
            $id = SessionId::generate();
            $store->write($id, ['a' => 1], 60);
            for ($i = 0; $i < 3; $i++) { // and the store works on: no lock or watch left behind
                try {
                    $store->update($id, static fn (?array $stored): array => throw new \DomainException('no'), 60);
                    self::fail('the exception went missing');
                } catch (\DomainException $e) {
                    self::assertSame('no', $e->getMessage());
                }
            }
            self::assertSame(['a' => 1], $store->read($id));
            self::assertSame(['a' => 2], $store->update($id, static fn (?array $stored): array => ['a' => 2], 60));
            self::assertSame(['a' => 2], $store->read($id));
        });
    }

    public function testConcurrentUpdatesOfOneSessionLoseNothing(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            \assert($store instanceof AtomicSessionStore);
            $id = SessionId::generate();
            $workers = [];
            for ($i = 0; $i < 8; $i++) {
                $workers[] = go(static function () use ($store, $id, $i): void {
                    for ($j = 0; $j < 10; $j++) {
                        $store->update($id, static fn (?array $stored): array => ($stored ?? []) + ["{$i}-{$j}" => true], 60);
                    }
                });
            }
            foreach ($workers as $worker) {
                $worker->join();
            }

            self::assertCount(80, $store->read($id) ?? []);
        });
    }

    /** @param \Closure(SessionStore): void $test */
    protected function withStore(\Closure $test): void
    {
        $this->async(function () use ($test): void {
            $store = $this->createStore();
            try {
                $test($store);
            } finally {
                $this->disposeStore($store);
            }
        });
    }
}
