<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Session;

use Petrel\Web\Session\FileSessionStore;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\Session;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/**
 * FileSessionStore shared by processes, as the workers of `bin/petrel start` and classic
 * mode's php-fpm children share it: requests of one user handled by several processes at
 * the same moment keep each other's keys, and a logout in one process is not undone by
 * another's save.
 */
#[CoversClass(FileSessionStore::class)]
#[CoversClass(Session::class)]
final class FileSessionProcessesTest extends TestCase
{
    private const PROCESSES = 4;
    private const SAVES = 150;

    private string $dir = '';
    private string $sessions = '';

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-session-processes-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        $this->sessions = "{$this->dir}/sessions";
        \mkdir($this->dir, 0700);
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    public function testProcessesSavingOneSessionAtOnceKeepEveryKey(): void
    {
        $id = SessionId::generate();
        (new FileSessionStore($this->sessions))->write($id, ['data' => ['user' => 12], 'flash' => [], 'at' => 0], 600);

        $this->runProcesses(self::PROCESSES, <<<'PHP'
            for ($i = 0; $i < SAVES; $i++) { // one request each: load, set a key of its own, save
                $session = new Session(new FileSessionStore(DIR), ID);
                $session->get('user') === 12 || exit("request {$i} of process " . PROCESS . " found no session\n");
                $session->set('p' . PROCESS . "-{$i}", $i);
                $session->save() === ID || exit("request {$i} of process " . PROCESS . " lost its session id\n");
            }
            PHP, $id);

        $data = (new FileSessionStore($this->sessions))->read($id)['data'] ?? [];
        self::assertSame(12, $data['user'] ?? null);
        $lost = [];
        for ($process = 0; $process < self::PROCESSES; $process++) {
            for ($i = 0; $i < self::SAVES; $i++) {
                \array_key_exists("p{$process}-{$i}", $data) || $lost[] = "p{$process}-{$i}";
            }
        }
        self::assertSame([], $lost, \count($lost) . ' keys lost');
    }

    public function testSavesRacingALogoutNeverBringTheSessionBack(): void
    {
        // Process 0 logs in and out of one session, over and over; the others load it and
        // save a key of their own without pause. A save that read the session before the
        // logout and wrote it after would bring back the user id: after each logout, once
        // the others' saves of that moment are done, the user must be gone.
        $id = SessionId::generate();
        (new FileSessionStore($this->sessions))->write($id, ['data' => ['user' => 12], 'flash' => [], 'at' => 0], 600);
        $this->runProcesses(self::PROCESSES, <<<'PHP'
            $store = new FileSessionStore(DIR);
            if (PROCESS > 0) {
                $until = microtime(true) + 30; // should process 0 die before it says done
                for ($i = 0; !file_exists(BASE . '/done') && microtime(true) < $until; $i++) {
                    $session = new Session($store, ID);
                    $session->get('user');
                    $session->set('p' . PROCESS, $i);
                    $session->save();
                }
                exit(0);
            }
            $undone = 0;
            for ($round = 0; $round < 100; $round++) {
                $store->write(ID, ['data' => ['user' => 12], 'flash' => [], 'at' => 0], 600); // log in
                usleep(200);
                $session = new Session($store, ID);
                $session->get('user');
                $session->clear(); // log out
                $session->save();
                usleep(500);
                $undone += array_key_exists('user', $store->read(ID)['data'] ?? []) ? 1 : 0;
            }
            touch(BASE . '/done');
            $undone === 0 || exit("{$undone} of 100 logouts were undone\n");
            PHP, $id);
    }

    /**
     * Runs $body in $count PHP processes at once and fails on any output or a non-zero exit.
     * $body sees the constants BASE (this test's directory), DIR (the sessions'), ID,
     * PROCESS (0 to $count - 1) and SAVES.
     */
    private function runProcesses(int $count, string $body, string $id): void
    {
        $script = $this->dir . '/child.php';
        \file_put_contents($script, \sprintf(
            <<<'PHP'
                <?php
                declare(strict_types=1);
                require %s;
                use Petrel\Web\Session\FileSessionStore;
                use Petrel\Web\Session\Session;
                const BASE = %s;
                const DIR = %s;
                const ID = %s;
                const SAVES = %d;
                define('PROCESS', (int) $argv[1]);
                $deadline = microtime(true) + 20;
                while (!file_exists(BASE . '/go')) { // all start at once
                    microtime(true) < $deadline || exit("never told to start\n");
                    usleep(1000);
                }
                %s
                PHP,
            \var_export(\dirname(__DIR__, 4) . '/vendor/autoload.php', true),
            \var_export($this->dir, true),
            \var_export($this->sessions, true),
            \var_export($id, true),
            self::SAVES,
            $body,
        ));
        $processes = [];
        for ($i = 0; $i < $count; $i++) {
            $process = \proc_open([\PHP_BINARY, $script, (string) $i], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            self::assertIsResource($process);
            $processes[$i] = [$process, $pipes[1], $pipes[2]];
        }
        \touch($this->dir . '/go');
        foreach ($processes as $i => [$process, $output, $errors]) {
            $text = \stream_get_contents($output) . \stream_get_contents($errors);
            \fclose($output);
            \fclose($errors);
            self::assertSame(0, \proc_close($process), "process {$i}: {$text}");
            self::assertSame('', $text, "process {$i}");
        }
    }
}
