<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Web\Session\FileSessionStore;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\SessionStore;
use PHPUnit\Framework\Attributes\CoversClass;

/** The file session store (classic mode without Redis) passes the SessionStore conformance suite. */
#[CoversClass(FileSessionStore::class)]
final class FileSessionStoreTest extends SessionStoreTestCase
{
    private string $dir = '';
    private int $now = 1_700_000_000;

    protected function setUp(): void
    {
        parent::setUp();
        $this->dir = \sys_get_temp_dir() . '/petrel-file-sessions-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    protected function createStore(): SessionStore
    {
        return new FileSessionStore($this->dir, fn (): int => $this->now);
    }

    protected function elapse(SessionStore $store, int $seconds): void
    {
        $this->now += $seconds;
    }

    public function testIdsThatCouldEscapeTheDirectoryAreNeverFiles(): void
    {
        $store = $this->createStore();
        foreach (['../../etc/passwd', 'a/b', '', 'short'] as $id) {
            self::assertNull($store->read($id));
            $store->destroy($id);
        }
        $this->expectException(\InvalidArgumentException::class);
        $store->write('../escape-attempt-0000', ['x' => 1], 60);
    }

    public function testAnExpiredOrUnreadableFileReadsAsNoSession(): void
    {
        $store = $this->createStore();
        [$expired, $corrupt] = [SessionId::generate(), SessionId::generate()];
        $store->write($expired, ['a' => 1], 10);
        \file_put_contents("{$this->dir}/{$corrupt}.json", '{"expires": "soon"');
        $this->now += 10;

        self::assertNull($store->read($expired));
        self::assertFileDoesNotExist("{$this->dir}/{$expired}.json", 'an expired session is deleted when read');
        self::assertNull($store->read($corrupt));
    }

    /**
     * read() finds a session expired and lets go of its lock; another process saves the
     * session afresh before read() deletes the file. The fresh save must stay.
     */
    public function testAReadDeletesAnExpiredSessionOnlyIfNobodySavedItMeanwhile(): void
    {
        $id = SessionId::generate();
        $other = $this->createStore();
        $other->write($id, ['old' => true], 10);
        $checks = 0;
        $store = new FileSessionStore($this->dir, function () use (&$checks, $other, $id): int {
            if (++$checks === 1) {
                // between read()'s expiry check and its deletion: another process saves
                $other->write($id, ['fresh' => true], 3600);
            }

            return $this->now + 100;
        });

        self::assertNull($store->read($id), 'expired when read');
        self::assertSame(['fresh' => true], $other->read($id), 'the fresh save was kept');
        self::assertGreaterThan(1, $checks, 'checked again under the lock');
    }

    public function testAWriteLeavesNoTemporaryFileBehind(): void
    {
        $store = $this->createStore();
        $id = SessionId::generate();
        $store->write($id, ['n' => 1], 60);
        $store->write($id, ['n' => 2], 60);

        self::assertSame(["{$id}.json"], \array_values(\array_diff(\scandir($this->dir) ?: [], ['.', '..'])));
        self::assertSame(['n' => 2], $store->read($id));
    }
}
