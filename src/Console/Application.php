<?php

declare(strict_types=1);

namespace Petrel\Console;

use Petrel\Console\Internal\CommandLine;
use Petrel\Console\Internal\ConnectionLimit;
use Petrel\Console\Internal\Daemon;
use Petrel\Console\Internal\HttpWorker;
use Petrel\Console\Internal\TaskWorker;
use Petrel\Http\Internal\AccessLog;
use Petrel\Http\ServerConfig;
use Petrel\Loop\DriverFactory;
use Petrel\Observability\FileWatcher;
use Petrel\Observability\Log;
use Petrel\Observability\MetricsEndpoint;
use Petrel\Process\Master;
use Petrel\Process\MasterConfig;
use Petrel\Process\PidFile;
use Petrel\Process\ProcessException;
use Petrel\Socket\ServerOptions;
use Petrel\Socket\SocketError;
use Petrel\Socket\SocketException;
use Petrel\Socket\SocketServer;

/**
 * bin/petrel: turns argv into a command and runs it. Every failure the user can cause is
 * one line on STDERR and a non-zero exit code.
 */
final class Application
{
    public const USAGE = <<<'TXT'
        Petrel — resident coroutine application server for PHP

        Usage:
          bin/petrel start APP [options]      serve APP (a PHP file returning a request handler)
          bin/petrel stop    [--pid-file=PATH | --listen=ADDR]   graceful stop (in-flight requests finish)
          bin/petrel reload  [--pid-file=PATH | --listen=ADDR]   graceful reload (new workers, then old ones drain)
          bin/petrel status  [--pid-file=PATH | --listen=ADDR]   per-worker pid, requests, connections, memory
          bin/petrel bench   [SCENARIO...] [--quick] [--out=DIR]  the seeds' comparisons, with a report and charts (bench --help)

        Start options (environment variables in brackets):
          --listen=ADDR         127.0.0.1:8080 [PETREL_LISTEN]
          --workers=N           worker processes, default: CPU count [PETREL_WORKERS]
          --mode=MODE           coroutine (default) or sync [PETREL_MODE]
          --max-requests=N      replace a worker after N requests, +0-10 % per worker (0 = never)
          --max-memory=SIZE     replace a worker after a request that took it past SIZE (e.g. 256M)
          --memory-limit=SIZE   PHP memory_limit of a worker, default max(512M, 2 x --max-memory); -1 = none
          --max-connections=N   open connections per worker, default: what the loop driver and
                                the descriptor limit allow (select: 938, and 62 for 503s)
          --pid-file=PATH       default: <tmp>/petrel-<listen address>.pid
          --daemon              detach; logs go to --log-file (default <pid file>.log)
          --reuse-port          each worker binds with SO_REUSEPORT instead of sharing one socket
          --max-body=SIZE       request body limit, default 32M
          --graceful-timeout=S  seconds in-flight requests get on stop/reload, default 30
          --header-timeout=S    seconds for a request head to arrive (slowloris), default 60
          --idle-timeout=S      seconds a keep-alive connection may idle, default 75
          --access-log[=PATH]   one line per request (default stderr)
          --access-log-format=F combined (default) or json (with the request id and duration)
          --metrics=ADDR        the master serves Prometheus metrics at http://ADDR/metrics
          --block-threshold=MS  report code that blocks a worker's loop this long, once per
                                call site, with its file:line (default 100; 0 = off)
          --watch[=DIR,...]     reload the workers when a PHP file or template changes
                                (default: the APP's directory); development
          --leak-check          report state a request leaves behind (statics, globals,
                                container singletons); development
          --static=DIR          serve files under DIR for GET/HEAD; other paths reach APP
          --gzip                compress text responses when the client accepts it
          --debug               exception details in 500 responses
          --task-workers=N      processes for blocking or CPU-heavy tasks (Petrel\Task\Tasks), default 0
          --task-queue=N        tasks one worker may have queued or running; more are refused, default 64
          --task-timeout=S      default seconds a task may take, queueing included, default 60
        TXT;

    /** @param array<string, string> $env */
    public function __construct(private readonly array $env)
    {
    }

    /** @param list<string> $argv */
    public function run(array $argv): int
    {
        try {
            [$command, $arguments, $flags] = CommandLine::parse($argv);

            return match ($command) {
                null, 'help', '--help', '-h' => $this->help(),
                'start' => $this->start(StartOptions::parse($arguments, $flags, $this->env)),
                'stop' => $this->stop(CommandLine::pidFile($command, $arguments, $flags, $this->env)),
                'reload' => $this->reload(CommandLine::pidFile($command, $arguments, $flags, $this->env)),
                'status' => (new StatusCommand())->run(CommandLine::pidFile($command, $arguments, $flags, $this->env)),
                'bench' => isset($flags['help']) ? $this->benchHelp() : (new BenchCommand(\dirname(__DIR__, 2), $this->env))->run($arguments, $flags, self::commandLine($argv)),
                default => throw new ConsoleException("Unknown command \"{$command}\" (see bin/petrel --help)"),
            };
        } catch (ConsoleException | ProcessException $error) {
            Log::stderr("petrel: {$error->getMessage()}\n"); // a daemon has closed STDERR

            return 1;
        }
    }

    private function help(): int
    {
        echo self::USAGE, "\n";

        return 0;
    }

    private function benchHelp(): int
    {
        echo BenchCommand::USAGE, "\n";

        return 0;
    }

    /** @param list<string> $argv the command as a user would type it again, for the report */
    private static function commandLine(array $argv): string
    {
        $words = ['bin/petrel'];
        foreach (\array_slice($argv, 1) as $arg) {
            $words[] = \preg_match('/^[\w.\/=:,@+-]+$/', $arg) ? $arg : \escapeshellarg($arg);
        }

        return \implode(' ', $words);
    }

    private function start(StartOptions $options): int
    {
        if (!\is_file($options->app)) {
            throw new ConsoleException("APP file not found: {$options->app}");
        }
        if ($options->accessLog !== null) {
            self::checkAccessLog($options->accessLog);
        }
        $pidFile = new PidFile($options->pidFile);
        if (($running = $pidFile->read()) !== null) {
            throw new ConsoleException("Petrel is already running with pid {$running} (pid file {$pidFile->path})");
        }
        // Workers inherit the raised limit (nginx's worker_rlimit_nofile).
        if (($warning = ConnectionLimit::raiseDescriptorLimit()) !== null) {
            \fwrite(\STDERR, "petrel: {$warning}\n");
        }
        $driver = DriverFactory::choose(); // the driver each worker will make (none made here)
        $options = $options->withMaxConnections(ConnectionLimit::resolve($options->maxConnections, $driver, ConnectionLimit::descriptorLimit()));
        try {
            $listener = SocketServer::listen($options->listen, new ServerOptions(backlog: 1024, reusePort: $options->reusePort));
        } catch (SocketException | SocketError $error) { // SocketError: an address StartOptions let through
            throw new ConsoleException("cannot listen on {$options->listen}: " . \preg_replace('/^Could not listen on [^:]+:\d+: /', '', $error->getMessage()));
        }
        $resource = $listener->getResource();
        if (\preg_match('/:0$/', $options->listen) && \preg_match('/:(\d+)$/', $listener->getAddress(), $port)) {
            // Port 0: the kernel picked one; say which, and let --reuse-port workers bind it too.
            $options = $options->withListen(\substr($options->listen, 0, -1) . $port[1]);
        }
        if ($options->reusePort) {
            $listener->close(); // only a probe: each worker binds its own socket
            $resource = null;
        }
        $banner = \sprintf(
            'Petrel listening on http://%s — %d worker(s)%s, %%s, %s, %s, %d connections per worker, pid %%d, pid file %s',
            \str_replace('%', '%%', $options->listen),
            $options->workers,
            $options->taskWorkers > 0 ? " + {$options->taskWorkers} task worker(s)" : '',
            ConnectionLimit::describe($driver),
            self::describeEngine(),
            $options->maxConnections,
            \str_replace('%', '%%', $options->pidFile), // $banner is a format again below
        );
        $sidecars = [];
        try {
            if ($options->metrics !== null) {
                $sidecars[] = $metricsEndpoint = new MetricsEndpoint($options->metrics);
                $banner .= ', metrics on http://' . \str_replace('%', '%%', $metricsEndpoint->boundAddress()) . '/metrics';
            }
        } catch (\RuntimeException $error) {
            throw new ConsoleException($error->getMessage());
        }
        if ($options->watch !== []) {
            $sidecars[] = new FileWatcher($options->watch);
            $banner .= ', watching ' . \str_replace('%', '%%', \implode(', ', $options->watch));
        }
        $daemon = $options->daemon ? new Daemon($options->logFile ?? \preg_replace('/\.pid$/', '', $options->pidFile) . '.log') : null;
        $daemon?->detach();
        try {
            // After detach: the process that binds a Unix socket removes its file on exit.
            $taskListener = $options->taskWorkers > 0 ? self::listenForTasks($options) : null;
        } catch (ConsoleException $error) {
            $daemon?->failed($error->getMessage());
            throw $error;
        }
        $master = new Master(
            (new HttpWorker($options, $resource, $taskListener?->getResource()))(...),
            new MasterConfig(
                workers: $options->workers,
                pidFile: $options->pidFile,
                gracefulTimeout: $options->gracefulTimeout,
                statusFile: StatusCommand::statusFileFor($options->pidFile),
                taskWorkers: $options->taskWorkers,
                // Not with --mode=sync, where blocking is the model; an APP that prefers sync
                // mode is not watched either (its workers publish no ticks).
                blockThreshold: $options->modeGiven && $options->mode === ServerConfig::MODE_SYNC ? 0.0 : $options->blockThreshold,
            ),
            onStopping: $listener->close(...),
            taskWorkerEntry: $taskListener !== null ? (new TaskWorker($options, $taskListener->getResource(), $resource))(...) : null,
            sidecars: $sidecars,
        );
        try {
            // A note from the workers is a mode the APP chose (a Symfony kernel: sync).
            return $master->run(static function (array $notes = []) use ($banner, $daemon, $options): void {
                $line = \sprintf($banner, $notes !== [] ? \implode('; ', $notes) : "{$options->mode} mode", \getmypid());
                $daemon === null ? \fwrite(\STDERR, "{$line}\n") : $daemon->started($line);
            });
        } catch (ProcessException $error) {
            $daemon?->failed($error->getMessage());
            throw new ConsoleException("could not start: {$error->getMessage()}", 0, $error);
        } finally {
            $taskListener?->close(); // the master bound it: this removes the socket file
        }
    }

    /**
     * How the workers run PHP, for the start line: "JIT off", "JIT tracing" (PETREL_JIT, or a
     * php.ini that turns it on), or "opcache off" (PETREL_NO_JIT=1, no opcache): the settings
     * that move a worker's speed the most, and the JIT's crash risk, said where one looks.
     */
    private static function describeEngine(): string
    {
        $status = \function_exists('opcache_get_status') ? \opcache_get_status(false) : false;
        if (!\is_array($status) || !($status['opcache_enabled'] ?? false)) {
            return 'opcache off';
        }

        return ($status['jit']['on'] ?? false) ? 'JIT ' . \ini_get('opcache.jit') : 'JIT off';
    }

    /**
     * Binds the task workers' Unix socket beside the pid file, reachable by this user only
     * (a task names code to run). Its backlog holds what all workers may have queued.
     */
    private static function listenForTasks(StartOptions $options): SocketServer
    {
        $path = $options->taskSocket();
        if (\strlen($path) > 107) {
            throw new ConsoleException("the task socket path {$path} is longer than a Unix socket allows (107 bytes): use a shorter --pid-file");
        }
        $umask = \umask(0077);
        try {
            $server = SocketServer::listen("unix://{$path}", new ServerOptions(backlog: \min(65535, \max(128, $options->workers * $options->taskQueue))));
        } catch (SocketException $error) {
            throw new ConsoleException("cannot listen for task workers on {$path}: {$error->getMessage()}");
        } finally {
            \umask($umask);
        }
        @\chmod($path, 0600);

        return $server;
    }

    /**
     * Refuses an access log the workers could not open, before any is forked: each would
     * fail its boot with a stack trace. Opening creates the file, as a worker would.
     */
    private static function checkAccessLog(string $path): void
    {
        try {
            \fclose(AccessLog::open($path));
        } catch (\RuntimeException $error) {
            throw new ConsoleException($error->getMessage(), 0, $error);
        }
    }

    private function stop(PidFile $pidFile): int
    {
        $pid = $pidFile->read() ?? throw new ConsoleException("no Petrel server is running (no live pid in {$pidFile->path})");
        \posix_kill($pid, \SIGTERM);
        \fwrite(\STDERR, "Stopping Petrel (pid {$pid}): in-flight requests finish first...\n");
        // As long as the server may drain (a --graceful-timeout above two minutes made
        // `stop && start` fail while the master was stopping as it should).
        $wait = StatusCommand::stopWait($pidFile->path, $pid);
        $deadline = \microtime(true) + $wait;
        while (PidFile::isAlive($pid) && \microtime(true) < $deadline) {
            \usleep(50000);
        }
        if (PidFile::isAlive($pid)) {
            throw new ConsoleException(\sprintf('pid %d is still running after %.0f s', $pid, $wait));
        }
        \fwrite(\STDERR, "Stopped.\n");

        return 0;
    }

    private function reload(PidFile $pidFile): int
    {
        $pid = $pidFile->read() ?? throw new ConsoleException("no Petrel server is running (no live pid in {$pidFile->path})");
        \posix_kill($pid, \SIGUSR1);
        \fwrite(\STDERR, "Reload requested (master pid {$pid}): new workers start, old ones finish their requests.\n");

        return 0;
    }
}
