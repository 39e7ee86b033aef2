<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model;

use Closure;
use Petrel\Database\Database;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\Model\Model;

/** Runs a test body in a coroutine against a backend with fresh tables, set as the models' database. */
abstract class DatabaseTestCase extends AsyncTestCase
{
    private string $file = '';

    /** @return array<string, array{string}> */
    public static function backends(): array
    {
        return Backends::all();
    }

    protected function tearDown(): void
    {
        Model::setDatabase(null);
        foreach (['', '-wal', '-shm'] as $suffix) {
            @\unlink($this->file . $suffix);
        }
    }

    /** @param Closure(Database): void $test */
    protected function onBackend(string $backend, Closure $test, int $poolSize = 10): void
    {
        $this->file = \sys_get_temp_dir() . '/petrel-model-' . \getmypid() . '-' . \bin2hex(\random_bytes(4)) . '.db';
        $this->async(function () use ($backend, $test, $poolSize): void {
            $db = Backends::open($backend, $this->file, $poolSize);
            Model::setDatabase($db);
            try {
                $test($db);
            } finally {
                Backends::drop($db);
                $db->close();
            }
        });
    }
}
