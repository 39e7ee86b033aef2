<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\PetrelProcess;
use PHPUnit\Framework\TestCase;

/** The CLI contract: clear one-line errors and non-zero exit codes. */
final class CliTest extends TestCase
{
    public function testHelp(): void
    {
        $output = PetrelProcess::runCli(['--help'], $code);
        self::assertSame(0, $code);
        self::assertStringContainsString('bin/petrel start APP', $output);
    }

    public function testMissingApp(): void
    {
        $output = PetrelProcess::runCli(['start', '/nonexistent/app.php', '--listen=127.0.0.1:' . PetrelProcess::freePort()], $code);
        self::assertNotSame(0, $code);
        self::assertSame("petrel: APP file not found: /nonexistent/app.php\n", $output);
    }

    public function testAppReturningTheWrongThing(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/bad-return.php', '--workers=2', '--listen=127.0.0.1:' . PetrelProcess::freePort(), '--pid-file=' . \sys_get_temp_dir() . '/petrel-cli-test.pid'], $code);
        self::assertNotSame(0, $code);
        self::assertSame(1, \substr_count($output, "\n"), "one line only: {$output}");
        self::assertStringContainsString('must return a request handler', $output);
        self::assertStringContainsString('it returned int', $output);
    }

    public function testAppWithASyntaxError(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/syntax-error.php', '--workers=1', '--listen=127.0.0.1:' . PetrelProcess::freePort(), '--pid-file=' . \sys_get_temp_dir() . '/petrel-cli-test.pid'], $code);
        self::assertNotSame(0, $code);
        self::assertStringContainsString('failed to load: ParseError', $output);
        self::assertSame(1, \substr_count($output, "\n"), "one line only: {$output}");
    }

    public function testPortInUse(): void
    {
        $busy = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($busy);
        $address = (string) \stream_socket_get_name($busy, false);
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', "--listen={$address}"], $code);
        self::assertNotSame(0, $code);
        self::assertSame("petrel: cannot listen on {$address}: Address already in use\n", $output);
    }

    public function testBadOptions(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--workers=zero'], $code);
        self::assertSame(1, $code);
        self::assertSame("petrel: --workers must be a positive whole number, got \"zero\"\n", $output);
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--mode=turbo'], $code);
        self::assertStringContainsString('Unknown mode "turbo"', $output);
        $output = PetrelProcess::runCli(['frobnicate'], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('Unknown command "frobnicate"', $output);
    }

    public function testBadTaskOptionsAreRefused(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--task-workers=some'], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('--task-workers must be a whole number, got "some"', $output);
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--task-queue=0'], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('--task-queue must be a positive whole number', $output);
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--task-workers=1', '--pid-file=/tmp/' . \str_repeat('p', 120) . '.pid', '--listen=127.0.0.1:' . PetrelProcess::freePort()], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('longer than a Unix socket allows', $output);
    }

    public function testMaxConnectionsAboveWhatTheDescriptorsAllowIsRefused(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--workers=1', '--max-connections=100000000', '--listen=127.0.0.1:' . PetrelProcess::freePort(), '--pid-file=' . \sys_get_temp_dir() . '/petrel-cli-test.pid'], $code);
        self::assertSame(1, $code);
        self::assertSame(1, \substr_count($output, "\n"), "one line only: {$output}");
        self::assertStringStartsWith('petrel: --max-connections=100000000 ', $output);
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--memory-limit=64M', '--max-memory=64M'], $code);
        self::assertSame(1, $code);
        self::assertStringContainsString('--memory-limit must be above --max-memory', $output);
    }

    public function testTheStartLineNamesTheLoopDriverAndTheConnectionCap(): void
    {
        $server = (new PetrelProcess(__DIR__ . '/fixtures/app.php', ['--workers=1', '--max-connections=300']))->start();
        self::assertMatchesRegularExpression('/Petrel listening on http:\/\/\S+ — 1 worker\(s\), coroutine mode, driver \w+.*, (JIT \w+|opcache off), 300 connections per worker, pid \d+/', $server->log());
        self::assertSame(0, $server->stop());
    }

    public function testTheStartLineSaysWhetherTheJitIsOn(): void
    {
        $saved = ['PETREL_JIT' => \getenv('PETREL_JIT'), 'PETREL_NO_JIT' => \getenv('PETREL_NO_JIT')];
        foreach (['tracing' => 'JIT tracing', 'off' => 'JIT off'] as $jit => $expected) {
            \putenv("PETREL_JIT={$jit}");
            \putenv('PETREL_NO_JIT');
            try {
                $server = (new PetrelProcess(__DIR__ . '/fixtures/app.php', ['--workers=1']))->start();
            } finally {
                foreach ($saved as $name => $value) {
                    \putenv($value === false ? $name : "{$name}={$value}");
                }
            }
            self::assertStringContainsString(", {$expected}, ", $server->log());
            self::assertSame(0, $server->stop());
        }
    }

    public function testStopReloadStatusWhenNothingRuns(): void
    {
        foreach (['stop', 'reload', 'status'] as $command) {
            $output = PetrelProcess::runCli([$command, '--pid-file=/tmp/petrel-nothing-here.pid'], $code);
            self::assertSame(1, $code);
            self::assertStringContainsString('no Petrel server is running', $output);
        }
    }

    /**
     * A typo, a stray argument or an empty --pid-file is refused: it used to fall back to the
     * default pid file, and `stop --pidfile=X extra-arg` stopped the default server, exit 0.
     */
    public function testStopReloadStatusRefuseWhatTheyDoNotTake(): void
    {
        foreach ([
            [['stop', '--pidfile=/tmp/petrel-nothing-here.pid'], 'Unknown option --pidfile for stop (see bin/petrel --help)'],
            [['reload', '--pid-file=/tmp/petrel-nothing-here.pid', 'extra-arg'], 'reload takes no arguments, got "extra-arg" (see bin/petrel --help)'],
            [['status', '--pid-file='], 'Option --pid-file needs a value (--pid-file=...)'],
            [['stop', '--listen=bogus'], '--listen must look like 127.0.0.1:8080, [::1]:8080 or unix:///path, got "bogus"'],
        ] as [$arguments, $message]) {
            $output = PetrelProcess::runCli($arguments, $code);
            self::assertSame(1, $code, $output);
            self::assertSame("petrel: {$message}\n", $output);
        }
    }

    /** The last one used to win, silently; an empty value meant the default. */
    public function testAFlagGivenTwiceOrEmptyIsRefused(): void
    {
        foreach ([
            // A missing APP: were the flags taken, start would fail on that (not serve on 8080).
            [['start', '/nonexistent/app.php', '--workers=1', '--workers=2'], 'Option --workers is given twice'],
            [['stop', '--pid-file=/tmp/petrel-nothing-here.pid', '--pid-file=/tmp/petrel-nothing-there.pid'], 'Option --pid-file is given twice'],
            [['start', '/nonexistent/app.php', '--workers='], 'Option --workers needs a value (--workers=...)'],
        ] as [$arguments, $message]) {
            $output = PetrelProcess::runCli($arguments, $code);
            self::assertSame(1, $code, $output);
            self::assertSame("petrel: {$message}\n", $output);
        }
    }

    /** Each of these was a PHP fatal error with a stack trace (exit 255), or a wrapped port. */
    public function testAMalformedListenAddressIsOneLine(): void
    {
        foreach (['garbage', '127.0.0.1:84886'] as $listen) {
            // A missing APP: were the address taken, start would fail on that (not serve on it).
            $output = PetrelProcess::runCli(['start', '/nonexistent/app.php', "--listen={$listen}"], $code);
            self::assertSame(1, $code, $output);
            self::assertSame(1, \substr_count($output, "\n"), "one line only: {$output}");
            self::assertStringStartsWith('petrel: --listen ', $output);
        }
    }

    /** Each worker used to fail with a 12-line stack trace. */
    public function testAnAccessLogThatCannotBeOpenedIsOneLine(): void
    {
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', '--workers=2', '--access-log=/nonexistent-dir/access.log', '--listen=127.0.0.1:' . PetrelProcess::freePort(), '--pid-file=' . \sys_get_temp_dir() . '/petrel-cli-test.pid'], $code);
        self::assertSame(1, $code, $output);
        self::assertSame("petrel: cannot open the access log /nonexistent-dir/access.log: No such file or directory\n", $output);
    }

    /**
     * --listen=…:0: the start line names the port the kernel picked (it said ":0"), and
     * --reuse-port workers bind that port too (each bound a port of its own).
     */
    public function testPortZeroStartsOnThePortItBound(): void
    {
        $pidFile = \sys_get_temp_dir() . '/petrel-cli-port0-' . \getmypid() . '.pid';
        $process = \proc_open([\PHP_BINARY, PetrelProcess::bin(), 'start', __DIR__ . '/fixtures/app.php', '--workers=2', '--reuse-port', "--pid-file={$pidFile}"], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, \getenv() + ['PETREL_LISTEN' => '127.0.0.1:0']);
        self::assertIsResource($process);
        try {
            $line = (string) \fgets($pipes[2]);
            self::assertMatchesRegularExpression('/^Petrel listening on http:\/\/127\.0\.0\.1:[1-9]\d* — 2 worker\(s\)/', $line);
            \preg_match('/127\.0\.0\.1:\d+/', $line, $address);
            for ($i = 0; $i < 6; $i++) {
                self::assertSame('Hello, World!', @\file_get_contents("http://{$address[0]}/"));
            }
        } finally {
            \proc_terminate($process, \SIGTERM);
            self::assertSame(0, \proc_close($process));
        }
    }

    public function testDaemonModeDetachesAndStops(): void
    {
        $port = PetrelProcess::freePort();
        $pidFile = \sys_get_temp_dir() . "/petrel-daemon-test-{$port}.pid";
        $started = \hrtime(true);
        $output = PetrelProcess::runCli(['start', __DIR__ . '/fixtures/app.php', "--listen=127.0.0.1:{$port}", '--workers=1', '--daemon', "--pid-file={$pidFile}"], $code);
        // At once: the launcher read the pipe to its end, which the workers' copies held open
        // (this test took 61 s; from a shell the command did not return at all).
        self::assertLessThan(10.0, (\hrtime(true) - $started) / 1e9, 'start --daemon returns once the server is up');
        self::assertSame(0, $code, $output);
        self::assertStringContainsString("Petrel listening on http://127.0.0.1:{$port}", $output);
        self::assertStringContainsString('(daemon; log', $output);
        $body = @\file_get_contents("http://127.0.0.1:{$port}/");
        self::assertSame('Hello, World!', $body);
        // The daemon closed STDERR: its master's first log line (this reload's) threw and
        // the master died, taking the server down; a stop "succeeded" the same way.
        $master = (int) \file_get_contents($pidFile);
        $log = (string) \preg_replace('/\.pid$/', '.log', $pidFile);
        $output = PetrelProcess::runCli(['reload', "--pid-file={$pidFile}"], $code);
        self::assertSame(0, $code, $output);
        PetrelProcess::waitFor(static fn (): bool => \str_contains((string) \file_get_contents($log), 'reloaded: old workers'), 15, 'the reload to complete: ' . \file_get_contents($log));
        self::assertTrue(\posix_kill($master, 0), 'the master lives on');
        self::assertSame('Hello, World!', @\file_get_contents("http://127.0.0.1:{$port}/"));
        $output = PetrelProcess::runCli(['stop', "--pid-file={$pidFile}"], $code);
        self::assertSame(0, $code, $output);
        self::assertFileDoesNotExist($pidFile);
        self::assertStringContainsString('petrel: stopped', (string) \file_get_contents($log));
        self::assertStringNotContainsString('TypeError', (string) \file_get_contents($log));
        @\unlink($log);
    }

    public function testEnvironmentVariablesMirrorFlags(): void
    {
        $port = PetrelProcess::freePort();
        $process = \proc_open([\PHP_BINARY, PetrelProcess::bin(), 'start', __DIR__ . '/fixtures/app.php'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, \getenv() + [
            'PETREL_LISTEN' => "127.0.0.1:{$port}",
            'PETREL_WORKERS' => '1',
            'PETREL_MODE' => 'sync',
        ]);
        self::assertIsResource($process);
        $line = (string) \fgets($pipes[2]);
        self::assertStringContainsString("http://127.0.0.1:{$port} — 1 worker(s), sync mode", $line);
        \proc_terminate($process, \SIGTERM);
        self::assertSame(0, \proc_close($process));
    }
}
