<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Observability\FileWatcher;
use PHPUnit\Framework\TestCase;

final class FileWatcherTest extends TestCase
{
    private string $dir;
    /** @var list<string> */
    private array $said = [];

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-watcher-' . \bin2hex(\random_bytes(4));
        \mkdir("{$this->dir}/vendor/x", 0777, true);
        \mkdir("{$this->dir}/views");
        \file_put_contents("{$this->dir}/app.php", "<?php\nreturn 1;\n");
        \file_put_contents("{$this->dir}/views/page.twig", 'a');
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    public function testAnEditInTheSameSecondWithTheSameSizeIsSeen(): void
    {
        $watcher = $this->watcher();
        self::assertFalse($watcher->poll(static fn (): array => []));
        \file_put_contents("{$this->dir}/app.php", "<?php\nreturn 2;\n"); // same size, same second
        self::assertTrue($watcher->poll(static fn (): array => []));
        self::assertSame(['app.php changed: reloading the workers'], $this->said);
        self::assertFalse($watcher->poll(static fn (): array => []), 'seen once');
    }

    public function testTemplatesAndNewFilesCountButVendorAndOtherFilesDoNot(): void
    {
        $watcher = $this->watcher();
        \file_put_contents("{$this->dir}/vendor/x/lib.php", '<?php ');
        \file_put_contents("{$this->dir}/notes.txt", 'x');
        self::assertFalse($watcher->poll(static fn (): array => []));
        \file_put_contents("{$this->dir}/views/page.twig", 'bb');
        self::assertTrue($watcher->poll(static fn (): array => []));
        \file_put_contents("{$this->dir}/views/new.php", '<?php ');
        self::assertTrue($watcher->poll(static fn (): array => []));
        \unlink("{$this->dir}/views/new.php");
        self::assertTrue($watcher->poll(static fn (): array => []));
    }

    public function testAFileThatDoesNotParseIsReportedWithItsLineAndNoReloadIsAsked(): void
    {
        $watcher = $this->watcher();
        \file_put_contents("{$this->dir}/app.php", "<?php\n\nreturn [;\n");
        self::assertFalse($watcher->poll(static fn (): array => []));
        self::assertCount(1, $this->said);
        self::assertMatchesRegularExpression('/^not reloading: syntax error, unexpected .* in ' . \preg_quote("{$this->dir}/app.php", '/') . ':3; /', $this->said[0]);
        \file_put_contents("{$this->dir}/app.php", "<?php\n\nreturn [];\n");
        self::assertTrue($watcher->poll(static fn (): array => []), 'fixed: now it reloads');
    }

    /**
     * One of several watched directories removed (a branch switched, a build directory
     * cleaned) threw UnexpectedValueException out of poll(), in the master's loop: the
     * server died and its workers with it. Its files count as removed, then as new.
     */
    public function testAWatchedDirectoryRemovedAndMadeAgainReloadsInsteadOfThrowing(): void
    {
        $watcher = $this->watcher([$this->dir, "{$this->dir}/views"]);
        \exec('rm -rf ' . \escapeshellarg("{$this->dir}/views"));
        self::assertTrue($watcher->poll(static fn (): array => []), 'its files went away');
        self::assertSame(['page.twig changed: reloading the workers'], $this->said);
        self::assertFalse($watcher->poll(static fn (): array => []), 'still gone: nothing new');

        \mkdir("{$this->dir}/views");
        \file_put_contents("{$this->dir}/views/page.twig", 'a');
        self::assertTrue($watcher->poll(static fn (): array => []), 'back again');
    }

    /** @param list<string>|null $directories */
    private function watcher(?array $directories = null): FileWatcher
    {
        return new FileWatcher($directories ?? [$this->dir], function (string $message): void {
            $this->said[] = $message;
        });
    }
}
