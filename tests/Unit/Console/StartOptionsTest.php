<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Console;

use Petrel\Console\ConsoleException;
use Petrel\Console\StartOptions;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** `start`'s options: every bad value is one clear line, never a default or a wrapped number. */
final class StartOptionsTest extends TestCase
{
    /** @return iterable<string, array{string, string}> */
    public static function booleanFlagsWithAValue(): iterable
    {
        foreach (['debug', 'daemon', 'gzip', 'leak-check', 'reuse-port'] as $flag) {
            foreach (['false', '0', 'no', 'true', ''] as $value) {
                yield "--{$flag}={$value}" => [$flag, $value];
            }
        }
    }

    /** --debug=false used to turn debug on: stack traces to clients. */
    #[DataProvider('booleanFlagsWithAValue')]
    public function testABooleanFlagTakesNoValue(string $flag, string $value): void
    {
        self::assertRefused([$flag => $value], "Option --{$flag} takes no value, got \"--{$flag}={$value}\" (leave the option out to turn it off)");
    }

    public function testBooleanFlagsAlone(): void
    {
        $options = self::parse(['debug' => true, 'gzip' => true, 'daemon' => true, 'leak-check' => true, 'reuse-port' => true]);
        self::assertTrue($options->debug && $options->gzip && $options->daemon && $options->leakCheck && $options->reusePort);
        $options = self::parse([]);
        self::assertFalse($options->debug || $options->gzip || $options->daemon || $options->leakCheck || $options->reusePort);
    }

    /** @return iterable<string, array{array<string, string>, array<string, string>, string}> */
    public static function badAddresses(): iterable
    {
        $shape = 'must look like 127.0.0.1:8080, [::1]:8080 or unix:///path';
        yield 'garbage' => [['listen' => 'garbage'], [], "--listen {$shape}, got \"garbage\""];
        yield 'no port' => [['listen' => '127.0.0.1'], [], "--listen {$shape}, got \"127.0.0.1\""];
        yield 'no host' => [['listen' => ':19353'], [], "--listen {$shape}, got \":19353\""];
        yield 'no path' => [['listen' => 'unix://'], [], "--listen {$shape}, got \"unix://\""];
        yield 'PETREL_LISTEN' => [[], ['PETREL_LISTEN' => 'bogus'], "--listen {$shape}, got \"bogus\""];
        yield 'listen port wraps' => [['listen' => '127.0.0.1:84886'], [], '--listen port must be 0-65535, got "127.0.0.1:84886"'];
        yield 'listen 65536' => [['listen' => '[::1]:65536'], [], '--listen port must be 0-65535, got "[::1]:65536"'];
        yield 'listen long port' => [['listen' => 'localhost:000000080'], [], '--listen port must be 0-65535, got "localhost:000000080"'];
        yield 'env port wraps' => [[], ['PETREL_LISTEN' => '127.0.0.1:70000'], '--listen port must be 0-65535, got "127.0.0.1:70000"'];
        yield 'metrics port wraps' => [['metrics' => '127.0.0.1:70000'], [], '--metrics port must be 0-65535, got "127.0.0.1:70000"'];
        yield 'metrics bare port' => [['metrics' => '99999'], [], '--metrics port must be 0-65535, got "127.0.0.1:99999"'];
    }

    /**
     * @param array<string, string> $flags
     * @param array<string, string> $env
     */
    #[DataProvider('badAddresses')]
    public function testAMalformedOrOutOfRangeAddressIsRefused(array $flags, array $env, string $message): void
    {
        self::assertRefused($flags, $message, $env);
    }

    public function testTheAddressesTheSocketLayerTakes(): void
    {
        foreach (['127.0.0.1:0', '127.0.0.1:65535', '[::1]:8080', 'localhost:80', 'tcp://127.0.0.1:8080', 'unix:///tmp/p.sock', '/tmp/p.sock'] as $listen) {
            self::assertSame($listen, self::parse(['listen' => $listen])->listen);
        }
        self::assertSame('127.0.0.1:9100', self::parse(['metrics' => '9100'])->metrics);
        self::assertSame('127.0.0.1:8080', self::parse([], ['PETREL_LISTEN' => ''])->listen, 'an empty variable is unset');
    }

    /** @return iterable<string, array{string, string, string}> */
    public static function hugeValues(): iterable
    {
        yield 'max-body' => ['max-body', '99999999999G', '--max-body must be at most 4096G, got "99999999999G"'];
        yield 'max-body bytes' => ['max-body', '99999999999999999999999', '--max-body must be at most 4096G, got "99999999999999999999999"'];
        yield 'max-memory' => ['max-memory', '99999999999G', '--max-memory must be at most 4096G, got "99999999999G"'];
        yield 'memory-limit' => ['memory-limit', '4097G', '--memory-limit must be at most 4096G, got "4097G"'];
        yield 'max-requests' => ['max-requests', '9000000000000000000', '--max-requests must be at most 1000000000000000, got "9000000000000000000"'];
        yield 'workers' => ['workers', '99999999999999999999', '--workers must be at most 1000000000000000, got "99999999999999999999"'];
        yield 'workers past the process cap' => ['workers', '1025', '--workers must be at most 1024 (each is a PHP process; a worker serves thousands of connections, so a few per CPU core is plenty), got "1025"'];
        yield 'task-workers past the process cap' => ['task-workers', '99999', '--task-workers must be at most 1024 (each is a PHP process; a worker serves thousands of connections, so a few per CPU core is plenty), got "99999"'];
        yield 'task-queue' => ['task-queue', '1000000000000001', '--task-queue must be at most 1000000000000000, got "1000000000000001"'];
    }

    /** They overflowed int into float: a TypeError and a stack trace. */
    #[DataProvider('hugeValues')]
    public function testSizesAndCountsAreBounded(string $flag, string $value, string $message): void
    {
        self::assertRefused([$flag => $value], $message);
    }

    public function testTheLargestSizesAndCounts(): void
    {
        $options = self::parse(['max-body' => '4096G', 'max-memory' => '4095G', 'max-requests' => '1000000000000000', 'memory-limit' => '4096G', 'workers' => '1024', 'task-workers' => '1024']);
        self::assertSame([1024, 1024], [$options->workers, $options->taskWorkers]);
        self::assertSame(1 << 42, $options->maxBodyBytes);
        self::assertSame(4095 << 30, $options->maxMemory);
        self::assertSame(1_000_000_000_000_000, $options->maxRequests);
        self::assertSame(2 * (4095 << 30), self::parse(['max-memory' => '4095G'])->memoryLimit, 'the default stays twice --max-memory');
    }

    /** @return iterable<string, array{string, string, string}> */
    public static function endlessTimes(): iterable
    {
        yield 'block-threshold 1e20' => ['block-threshold', '1e20', '--block-threshold must be at most 86400000 milliseconds (a day), got "1e20"'];
        yield 'block-threshold INF' => ['block-threshold', '1e999', '--block-threshold must be at most 86400000 milliseconds (a day), got "1e999"'];
        foreach (['graceful-timeout', 'header-timeout', 'idle-timeout', 'task-timeout'] as $flag) {
            yield "{$flag} INF" => [$flag, '1e999', "--{$flag} must be at most 86400 seconds (a day), got \"1e999\""];
            yield "{$flag} 86401" => [$flag, '86401', "--{$flag} must be at most 86400 seconds (a day), got \"86401\""];
        }
    }

    /** --block-threshold=1e999 became INF, then a threshold of 0 ns in the watchdog: every request flagged. */
    #[DataProvider('endlessTimes')]
    public function testTimesAreFiniteAndAtMostADay(string $flag, string $value, string $message): void
    {
        self::assertRefused([$flag => $value], $message);
    }

    public function testTheLongestTimes(): void
    {
        $options = self::parse(['block-threshold' => '86400000', 'graceful-timeout' => '86400', 'idle-timeout' => '86400']);
        self::assertSame(86400.0, $options->blockThreshold);
        self::assertSame(86400.0, $options->gracefulTimeout);
        self::assertSame(86400.0, $options->idleTimeout);
    }

    /** PHP refuses a memory_limit below what a worker uses: the limit was silently not applied. */
    public function testMemoryLimitHasAMinimum(): void
    {
        foreach (['0', '1K', '15M', '16777215'] as $value) {
            self::assertRefused(['memory-limit' => $value], "--memory-limit must be at least 16M (or -1 for none), got \"{$value}\"");
        }
        self::assertSame(16 << 20, self::parse(['memory-limit' => '16M'])->memoryLimit);
        self::assertSame(-1, self::parse(['memory-limit' => '-1'])->memoryLimit);
    }

    /** `--workers=` used to mean the default, silently, while a bare `--workers` was refused. */
    public function testAnEmptyValueIsRefused(): void
    {
        foreach (['workers', 'max-body', 'graceful-timeout', 'pid-file', 'listen', 'access-log', 'watch', 'log-file', 'memory-limit'] as $flag) {
            self::assertRefused([$flag => ''], "Option --{$flag} needs a value (--{$flag}=...)");
        }
        self::assertRefused(['workers' => true], 'Option --workers needs a value (--workers=...)');
        self::assertSame(StartOptions::cpuCount(), self::parse([], ['PETREL_WORKERS' => ''])->workers, 'an empty variable is unset');
    }

    /** README: --access-log[=PATH], stderr by default; the bare flag was refused as valueless. */
    public function testAccessLogAloneGoesToStderr(): void
    {
        self::assertSame('php://stderr', self::parse(['access-log' => true])->accessLog);
        self::assertSame('/tmp/a.log', self::parse(['access-log' => '/tmp/a.log'])->accessLog);
        self::assertNull(self::parse([])->accessLog);
    }

    public function testUnknownOptionsStayRefused(): void
    {
        self::assertRefused(['pidfile' => '/tmp/x.pid'], 'Unknown option --pidfile for start (see bin/petrel --help)');
    }

    public function testWithListenKeepsThePidFile(): void
    {
        $options = self::parse(['listen' => '127.0.0.1:0']);
        $moved = $options->withListen('127.0.0.1:19451');
        self::assertSame('127.0.0.1:19451', $moved->listen);
        self::assertSame($options->pidFile, $moved->pidFile);
    }

    /**
     * @param array<string, string|true> $flags
     * @param array<string, string> $env
     */
    private static function parse(array $flags, array $env = []): StartOptions
    {
        return StartOptions::parse(['app.php'], $flags, $env);
    }

    /**
     * @param array<string, string|true> $flags
     * @param array<string, string> $env
     */
    private static function assertRefused(array $flags, string $message, array $env = []): void
    {
        try {
            self::parse($flags, $env);
        } catch (ConsoleException $error) {
            self::assertSame($message, $error->getMessage());

            return;
        }
        self::fail("accepted: {$message}");
    }
}
