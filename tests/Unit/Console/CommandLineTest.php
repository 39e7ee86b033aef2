<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Console;

use Petrel\Console\ConsoleException;
use Petrel\Console\Internal\CommandLine;
use Petrel\Process\PidFile;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** argv, and the pid file stop/reload/status act on: a mistake is refused, never guessed around. */
final class CommandLineTest extends TestCase
{
    public function testParse(): void
    {
        self::assertSame(
            ['start', ['app.php'], ['workers' => '2', 'daemon' => true, 'access-log' => true, 'pid-file' => '']],
            CommandLine::parse(['bin/petrel', 'start', 'app.php', '--workers=2', '-d', '--access-log', '--pid-file=']),
        );
        self::assertSame('help', CommandLine::parse(['bin/petrel', 'stop', '--help'])[0]);
        self::assertSame('bench', CommandLine::parse(['bin/petrel', 'bench', '--help'])[0]);
    }

    /** The last one used to win, silently. */
    public function testAFlagGivenTwiceIsRefused(): void
    {
        foreach ([
            [['start', 'app.php', '--workers=1', '--workers=2'], 'Option --workers is given twice'],
            [['start', 'app.php', '-d', '--daemon'], 'Option --daemon is given twice (-d is --daemon)'],
            [['stop', '--pid-file=/tmp/a.pid', '--pid-file=/tmp/b.pid'], 'Option --pid-file is given twice'],
        ] as [$argv, $message]) {
            try {
                CommandLine::parse(['bin/petrel', ...$argv]);
                self::fail("accepted: {$message}");
            } catch (ConsoleException $error) {
                self::assertSame($message, $error->getMessage());
            }
        }
    }

    /** @return iterable<string, array{list<string>, array<string, string|true>, string}> */
    public static function mistakes(): iterable
    {
        yield 'typo and a stray argument' => [['extra-arg'], ['pidfile' => '/tmp/b.pid'], 'stop takes no arguments, got "extra-arg" (see bin/petrel --help)'];
        yield 'typo' => [[], ['pidfile' => '/tmp/b.pid'], 'Unknown option --pidfile for stop (see bin/petrel --help)'];
        yield 'a start option' => [[], ['workers' => '2'], 'Unknown option --workers for stop (see bin/petrel --help)'];
        yield 'empty pid file' => [[], ['pid-file' => ''], 'Option --pid-file needs a value (--pid-file=...)'];
        yield 'valueless pid file' => [[], ['pid-file' => true], 'Option --pid-file needs a value (--pid-file=...)'];
        yield 'empty listen' => [[], ['listen' => ''], 'Option --listen needs a value (--listen=...)'];
        yield 'malformed listen' => [[], ['listen' => 'bogus'], '--listen must look like 127.0.0.1:8080, [::1]:8080 or unix:///path, got "bogus"'];
        yield 'listen port wraps' => [[], ['listen' => '127.0.0.1:84886'], '--listen port must be 0-65535, got "127.0.0.1:84886"'];
    }

    /**
     * Each of these used to fall back to the default pid file: `stop --pidfile=X extra-arg`
     * stopped the default server and exited 0.
     *
     * @param list<string> $arguments
     * @param array<string, string|true> $flags
     */
    #[DataProvider('mistakes')]
    public function testStopReloadStatusRefuseWhatTheyDoNotTake(array $arguments, array $flags, string $message): void
    {
        $this->expectException(ConsoleException::class);
        $this->expectExceptionMessage($message);
        CommandLine::pidFile('stop', $arguments, $flags, []);
    }

    public function testThePidFileTheyActOn(): void
    {
        self::assertSame('/tmp/b.pid', CommandLine::pidFile('status', [], ['pid-file' => '/tmp/b.pid', 'listen' => '127.0.0.1:19450'], [])->path, '--pid-file wins, as in start');
        self::assertSame(PidFile::forAddress('127.0.0.1:19450')->path, CommandLine::pidFile('status', [], ['listen' => '127.0.0.1:19450'], ['PETREL_LISTEN' => '127.0.0.1:19451'])->path);
        self::assertSame(PidFile::forAddress('127.0.0.1:19451')->path, CommandLine::pidFile('reload', [], [], ['PETREL_LISTEN' => '127.0.0.1:19451'])->path);
        self::assertSame(PidFile::forAddress('127.0.0.1:8080')->path, CommandLine::pidFile('stop', [], [], ['PETREL_LISTEN' => ''])->path);
    }
}
