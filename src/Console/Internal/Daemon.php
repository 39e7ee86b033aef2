<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\ConsoleException;

/**
 * --daemon: forks; the parent waits until the detached master says it started (or why it
 * could not) and exits with that outcome, so `petrel start -d` fails loudly when it fails.
 * The daemon's standard streams go to the log file.
 *
 * @internal
 */
final class Daemon
{
    /** @var resource|null */
    private $pipe = null;

    public function __construct(private readonly string $logFile)
    {
    }

    /** Returns in the daemon; the original process prints the outcome and exits. */
    public function detach(): void
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            throw new ConsoleException('cannot create a pipe to start the daemon');
        }
        $pid = \pcntl_fork();
        if ($pid === -1) {
            throw new ConsoleException('fork() failed: cannot start the daemon');
        }
        if ($pid > 0) {
            \fclose($pair[1]);
            // One line, not up to EOF: the workers the master forks before it answers hold
            // copies of the other end, which would keep EOF away until they all exit.
            $answer = \fgets($pair[0]);
            $answer = \is_string($answer) ? \trim($answer) : '';
            if (\str_starts_with($answer, 'ok ')) {
                \fwrite(\STDERR, \substr($answer, 3) . "\n");
                exit(0);
            }
            \fwrite(\STDERR, 'petrel: ' . ($answer !== '' ? \substr($answer, 6) : "the daemon exited before it started; see {$this->logFile}") . "\n");
            exit(1);
        }
        \fclose($pair[0]);
        $this->pipe = $pair[1];
        \posix_setsid();
        $log = @\fopen($this->logFile, 'ab');
        if ($log === false) {
            $this->failed("cannot open the log file {$this->logFile}");
            exit(1);
        }
        \fclose($log);
        // Reopen fds 0-2: the lowest free descriptors are reused in order.
        \fclose(\STDIN);
        \fclose(\STDOUT);
        \fclose(\STDERR);
        $GLOBALS['PETREL_STDIN'] = \fopen('/dev/null', 'rb');
        $GLOBALS['PETREL_STDOUT'] = \fopen($this->logFile, 'ab');
        $GLOBALS['PETREL_STDERR'] = \fopen($this->logFile, 'ab');
        \ini_set('error_log', $this->logFile);
    }

    public function started(string $banner): void
    {
        $this->answer("ok {$banner} (daemon; log {$this->logFile})");
    }

    public function failed(string $reason): void
    {
        $this->answer("error {$reason}");
    }

    private function answer(string $message): void
    {
        if ($this->pipe !== null) {
            @\fwrite($this->pipe, $message . "\n");
            @\fclose($this->pipe);
            $this->pipe = null;
        }
    }
}
