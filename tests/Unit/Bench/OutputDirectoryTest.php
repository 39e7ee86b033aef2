<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Bench;
use Petrel\Bench\BenchException;
use PHPUnit\Framework\TestCase;

/**
 * `petrel bench --out=DIR` into a directory an earlier run wrote: none of that run's
 * files are left beside the new report.
 */
final class OutputDirectoryTest extends TestCase
{
    private string $dir = '';

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-bench-out-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    public function testAnEarlierRunsFilesAreRemovedAndOthersKept(): void
    {
        $earlier = ['report.md', 'results.json', 'blog.png', 'hello.png', 'charts/blog.dat', 'charts/blog.gp',
            'logs/blog-direct.log', 'logs/blog-classic-php-fpm.log', 'raw/001-blog.txt'];
        $mine = ['notes.md', 'photo.png', 'charts/custom.gp', 'logs/README'];
        foreach ([...$earlier, ...$mine] as $file) {
            if (!\is_dir(\dirname("{$this->dir}/{$file}"))) {
                \mkdir(\dirname("{$this->dir}/{$file}"), 0755, true);
            }
            \file_put_contents("{$this->dir}/{$file}", 'earlier');
        }

        Bench::prepareOutput($this->dir);

        $left = \array_values(\array_filter([...$earlier, ...$mine], fn (string $file): bool => \is_file("{$this->dir}/{$file}")));
        self::assertSame($mine, $left);
        self::assertDirectoryExists("{$this->dir}/raw");
    }

    public function testANewDirectoryIsCreated(): void
    {
        Bench::prepareOutput("{$this->dir}/a/b");

        self::assertDirectoryExists("{$this->dir}/a/b/raw");
    }

    public function testOneThatCannotBeCreatedSaysWhich(): void
    {
        \mkdir($this->dir);
        \file_put_contents("{$this->dir}/file", '');

        $this->expectException(BenchException::class);
        $this->expectExceptionMessage("Cannot create the output directory {$this->dir}/file/out");
        Bench::prepareOutput("{$this->dir}/file/out");
    }
}
