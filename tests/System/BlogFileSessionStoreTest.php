<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Blog\FileSessionStore;
use Petrel\Tests\Unit\Web\Session\SessionStoreTestCase;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\SessionStore;

require_once __DIR__ . '/../../examples/blog/autoload.php';

/** The blog's file session store (classic mode without Redis) passes the SessionStore conformance suite. */
final class BlogFileSessionStoreTest extends SessionStoreTestCase
{
    private string $dir = '';
    private int $now = 1_700_000_000;

    protected function setUp(): void
    {
        parent::setUp();
        $this->dir = \sys_get_temp_dir() . '/petrel-blog-sessions-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
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
