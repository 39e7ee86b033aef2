<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Web\Session\FileSessionStore;
use Petrel\Web\Session\Internal\SessionId;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/**
 * The file store is shared by every worker: what one process writes another reads, and the
 * sweep (by modification time = expiry) deletes only expired sessions.
 */
#[CoversClass(FileSessionStore::class)]
final class FileSessionSweepTest extends TestCase
{
    private string $dir = '';
    private int $now = 1_700_000_000;

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-file-sweep-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    public function testTwoStoresOnOneDirectorySeeEachOthersSessions(): void
    {
        [$a, $b] = [new FileSessionStore($this->dir), new FileSessionStore($this->dir)];
        $id = SessionId::generate();
        $a->write($id, ['_csrf_token' => 't'], 60);
        self::assertSame(['_csrf_token' => 't'], $b->read($id));
        $b->destroy($id);
        self::assertNull($a->read($id));
    }

    public function testTheSweepDeletesExpiredFilesOnlyAndReadsNone(): void
    {
        $store = new FileSessionStore($this->dir, fn (): int => $this->now, sweepOneIn: 1);
        [$short, $long] = [SessionId::generate(), SessionId::generate()];
        $store->write($short, ['a' => 1], 10);
        $store->write($long, ['b' => 2], 1000);
        self::assertSame($this->now + 1000, \filemtime("{$this->dir}/{$long}.json"), 'the modification time is the expiry');

        $this->now += 11;
        $store->write(SessionId::generate(), ['c' => 3], 1000); // sweeps, but within the grace period
        self::assertFileExists("{$this->dir}/{$short}.json", 'a file being written may look expired for a moment');
        $this->now += 60;
        $store->write(SessionId::generate(), ['d' => 4], 1000);
        self::assertFileDoesNotExist("{$this->dir}/{$short}.json");
        self::assertSame(['b' => 2], $store->read($long));
        self::assertCount(3, \glob("{$this->dir}/*.json") ?: []);
    }
}
