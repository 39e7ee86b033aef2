<?php

declare(strict_types=1);

namespace Petrel\Console;

use Petrel\Http\ServerConfig;
use Petrel\Process\PidFile;

/** The `start` command's arguments, validated; flags win over PETREL_* environment variables. */
final class StartOptions
{
    /** --memory-limit's floor when not given: the larger of this and twice --max-memory. */
    public const DEFAULT_MEMORY_LIMIT = 512 * 1024 * 1024;

    public function __construct(
        public readonly string $app,
        public readonly string $listen,
        public readonly int $workers,
        public readonly string $mode,
        public readonly int $maxRequests,
        public readonly string $pidFile,
        public readonly bool $daemon,
        public readonly bool $reusePort,
        public readonly bool $debug,
        public readonly bool $gzip,
        public readonly ?string $accessLog,
        public readonly ?string $logFile,
        public readonly int $maxBodyBytes,
        public readonly float $gracefulTimeout,
        public readonly float $headerTimeout = 60.0,
        public readonly float $idleTimeout = 75.0,
        public readonly ?string $staticDir = null,
        /** Bytes of memory after which a worker is replaced (a recycle, like --max-requests); 0: never. */
        public readonly int $maxMemory = 0,
        /** A worker's PHP memory_limit in bytes (-1: none): one runaway request gets a 500, not the machine. */
        public readonly int $memoryLimit = self::DEFAULT_MEMORY_LIMIT,
        /** Connections per worker; null: as many as the loop driver and descriptor limit allow (Internal\ConnectionLimit). */
        public readonly ?int $maxConnections = null,
        /** Task worker processes (Petrel\Task\Tasks); 0: none. */
        public readonly int $taskWorkers = 0,
        /** Tasks one HTTP worker may have waiting or running at once; one more is refused. */
        public readonly int $taskQueue = 64,
        /** Seconds a task may take, queueing included, unless the call says otherwise. */
        public readonly float $taskTimeout = 60.0,
        /** Whether --mode (or PETREL_MODE) was given: if not, an APP that states a preferred mode (Http\ModePreference) gets it. */
        public readonly bool $modeGiven = false,
        /** --metrics=ADDR: where the master serves GET /metrics; null: not served. */
        public readonly ?string $metrics = null,
        /** --block-threshold=MS in seconds: report code that blocks a worker's loop this long; 0: off. */
        public readonly float $blockThreshold = 0.1,
        /**
         * --watch[=DIR,…]: absolute directories to watch for hot reload; []: off.
         *
         * @var list<string>
         */
        public readonly array $watch = [],
        /** --leak-check: report state a request leaves behind (statics, globals, singletons). */
        public readonly bool $leakCheck = false,
        /** --access-log-format=combined|json */
        public readonly string $accessLogFormat = ServerConfig::ACCESS_LOG_COMBINED,
    ) {
    }

    /** The Unix socket the task workers accept on: beside the pid file. */
    public function taskSocket(): string
    {
        return \preg_replace('/\.pid$/', '', $this->pidFile) . '.tasks.sock';
    }

    /** A copy with the per-worker connection cap resolved (see Internal\ConnectionLimit). */
    public function withMaxConnections(int $maxConnections): self
    {
        return new self(...['maxConnections' => $maxConnections] + \get_object_vars($this));
    }

    /**
     * @param list<string> $arguments positional arguments after the command name
     * @param array<string, string|true> $flags
     * @param array<string, string> $env
     */
    public static function parse(array $arguments, array $flags, array $env): self
    {
        $known = ['listen', 'workers', 'mode', 'max-requests', 'pid-file', 'daemon', 'reuse-port', 'debug', 'gzip', 'access-log', 'log-file', 'max-body', 'graceful-timeout', 'header-timeout', 'idle-timeout', 'static', 'max-memory', 'memory-limit', 'max-connections', 'task-workers', 'task-queue', 'task-timeout', 'metrics', 'block-threshold', 'watch', 'leak-check', 'access-log-format'];
        foreach (\array_keys($flags) as $flag) {
            if (!\in_array($flag, $known, true)) {
                throw new ConsoleException("Unknown option --{$flag} for start (see bin/petrel --help)");
            }
        }
        if (\count($arguments) !== 1) {
            throw new ConsoleException('Usage: bin/petrel start APP [--listen=127.0.0.1:8080] [--workers=N] [--mode=coroutine|sync] [--max-requests=N] [--pid-file=PATH] [--daemon]');
        }
        $value = static function (string $flag, ?string $envName, string $default) use ($flags, $env): string {
            $given = $flags[$flag] ?? ($envName !== null ? ($env[$envName] ?? null) : null);
            if ($given === true) {
                throw new ConsoleException("Option --{$flag} needs a value (--{$flag}=...)");
            }

            return $given === null || $given === '' ? $default : $given;
        };
        $app = $arguments[0];
        $maxMemory = self::bytes('max-memory', $value('max-memory', null, '0'));
        $memoryLimit = $value('memory-limit', null, '') === '-1' ? -1 : self::bytes('memory-limit', $value('memory-limit', null, (string) \max(self::DEFAULT_MEMORY_LIMIT, 2 * $maxMemory)));
        if ($maxMemory > 0 && $memoryLimit !== -1 && $memoryLimit <= $maxMemory) {
            throw new ConsoleException("--memory-limit must be above --max-memory (a worker is replaced at --max-memory; memory_limit kills the request that passes it)");
        }
        $listen = $value('listen', 'PETREL_LISTEN', '127.0.0.1:8080');
        $workers = self::positiveInt('workers', $value('workers', 'PETREL_WORKERS', (string) self::cpuCount()));
        $mode = $value('mode', 'PETREL_MODE', ServerConfig::MODE_COROUTINE);
        if ($mode !== ServerConfig::MODE_COROUTINE && $mode !== ServerConfig::MODE_SYNC) {
            throw new ConsoleException("Unknown mode \"{$mode}\": use --mode=coroutine or --mode=sync");
        }

        return new self(
            app: $app,
            listen: $listen,
            workers: $workers,
            mode: $mode,
            maxRequests: self::positiveInt('max-requests', $value('max-requests', null, '0'), allowZero: true),
            pidFile: $value('pid-file', null, PidFile::forAddress($listen)->path),
            daemon: isset($flags['daemon']),
            reusePort: isset($flags['reuse-port']),
            debug: isset($flags['debug']),
            gzip: isset($flags['gzip']),
            accessLog: isset($flags['access-log']) ? $value('access-log', null, 'php://stderr') : null,
            logFile: isset($flags['log-file']) ? $value('log-file', null, '') : null,
            maxBodyBytes: self::bytes('max-body', $value('max-body', null, '32M')),
            gracefulTimeout: self::seconds('graceful-timeout', $value('graceful-timeout', null, '30')),
            headerTimeout: self::seconds('header-timeout', $value('header-timeout', null, '60')),
            idleTimeout: self::seconds('idle-timeout', $value('idle-timeout', null, '75')),
            staticDir: isset($flags['static']) ? self::directory('static', $value('static', null, '')) : null,
            maxMemory: $maxMemory,
            memoryLimit: $memoryLimit,
            maxConnections: isset($flags['max-connections']) ? self::positiveInt('max-connections', $value('max-connections', null, '')) : null,
            taskWorkers: self::positiveInt('task-workers', $value('task-workers', null, '0'), allowZero: true),
            taskQueue: self::positiveInt('task-queue', $value('task-queue', null, '64')),
            taskTimeout: self::seconds('task-timeout', $value('task-timeout', null, '60')),
            modeGiven: isset($flags['mode']) || ($env['PETREL_MODE'] ?? '') !== '',
            metrics: isset($flags['metrics']) ? self::address('metrics', $value('metrics', null, '')) : null,
            blockThreshold: self::milliseconds('block-threshold', $value('block-threshold', null, '100')),
            watch: isset($flags['watch']) ? self::watchDirectories($flags['watch'], $app) : [],
            leakCheck: isset($flags['leak-check']),
            accessLogFormat: self::accessLogFormat($value('access-log-format', null, ServerConfig::ACCESS_LOG_COMBINED)),
        );
    }

    private static function address(string $flag, string $value): string
    {
        if (\preg_match('/^\d+$/', $value)) {
            $value = "127.0.0.1:{$value}";
        }
        if (!\preg_match('/^(\[[0-9a-f:.]+\]|[\w.-]+):\d{1,5}$/i', $value)) {
            throw new ConsoleException("--{$flag} must look like 127.0.0.1:9100 (or a port), got \"{$value}\"");
        }

        return $value;
    }

    private static function milliseconds(string $flag, string $value): float
    {
        if (!\is_numeric($value) || (float) $value < 0) {
            throw new ConsoleException("--{$flag} must be a number of milliseconds (0: off), got \"{$value}\"");
        }

        return (float) $value / 1000;
    }

    /**
     * --watch alone: the APP's directory; --watch=DIR,DIR: those.
     *
     * @return list<string>
     */
    private static function watchDirectories(string|true $value, string $app): array
    {
        $given = $value === true || $value === '' ? [\dirname($app)] : \explode(',', $value);
        $directories = [];
        foreach ($given as $directory) {
            $directories[] = self::directory('watch', \trim($directory));
        }

        return $directories;
    }

    private static function accessLogFormat(string $value): string
    {
        if ($value !== ServerConfig::ACCESS_LOG_COMBINED && $value !== ServerConfig::ACCESS_LOG_JSON) {
            throw new ConsoleException("--access-log-format must be combined or json, got \"{$value}\"");
        }

        return $value;
    }

    public static function cpuCount(): int
    {
        $count = 0;
        $info = @\file_get_contents('/proc/cpuinfo');
        if (\is_string($info)) {
            $count = \preg_match_all('/^processor\s*:/m', $info);
        }

        return \max(1, (int) $count);
    }

    private static function positiveInt(string $flag, string $value, bool $allowZero = false): int
    {
        if (!\ctype_digit($value) || (!$allowZero && (int) $value === 0)) {
            throw new ConsoleException("--{$flag} must be a " . ($allowZero ? 'whole number' : 'positive whole number') . ", got \"{$value}\"");
        }

        return (int) $value;
    }

    private static function seconds(string $flag, string $value): float
    {
        if (!\is_numeric($value) || (float) $value <= 0) {
            throw new ConsoleException("--{$flag} must be a positive number of seconds, got \"{$value}\"");
        }

        return (float) $value;
    }

    /** The directory's absolute path, so it does not depend on the working directory. */
    private static function directory(string $flag, string $value): string
    {
        $path = $value === '' ? false : \realpath($value);
        if ($path === false || !\is_dir($path)) {
            throw new ConsoleException("--{$flag} must be an existing directory, got \"{$value}\"");
        }

        return $path;
    }

    private static function bytes(string $flag, string $value): int
    {
        if (!\preg_match('/^(\d+)([KMG]?)$/i', $value, $m)) {
            throw new ConsoleException("--{$flag} must look like 512K, 32M or 1G, got \"{$value}\"");
        }

        return (int) $m[1] * (1024 ** \stripos('_KMG', $m[2] === '' ? '_' : $m[2]));
    }
}
