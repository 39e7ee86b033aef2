<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Tests\Support\AsyncTestCase;
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
