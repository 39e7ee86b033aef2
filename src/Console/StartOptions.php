<?php

declare(strict_types=1);

namespace Petrel\Console;

use Petrel\Console\Internal\OptionValue;
use Petrel\Http\ServerConfig;
use Petrel\Process\PidFile;

/** The `start` command's arguments, validated; flags win over PETREL_* environment variables. */
final class StartOptions
{
    /** --memory-limit's floor when not given: the larger of this and twice --max-memory. */
    public const DEFAULT_MEMORY_LIMIT = 512 * 1024 * 1024;

    /**
     * --memory-limit's minimum. PHP takes memory in 2 MiB chunks and refuses a limit below
     * what is in use: a worker holds 4 MiB before the APP loads (memory_get_usage(true)), and
     * 16M leaves a small APP three times that.
     */
    public const MIN_MEMORY_LIMIT = 16 * 1024 * 1024;

    /** Flags without a value: --debug=false is refused, not taken as --debug. */
    private const BOOLEAN_FLAGS = ['daemon', 'reuse-port', 'debug', 'gzip', 'leak-check'];

    /** Flags that need a non-empty value, or (OPTIONAL_VALUE_FLAGS) may stand alone. */
    private const VALUE_FLAGS = ['listen', 'workers', 'mode', 'max-requests', 'pid-file', 'access-log', 'log-file', 'max-body', 'graceful-timeout', 'header-timeout', 'idle-timeout', 'static', 'max-memory', 'memory-limit', 'max-connections', 'task-workers', 'task-queue', 'task-timeout', 'metrics', 'block-threshold', 'watch', 'access-log-format'];

    private const OPTIONAL_VALUE_FLAGS = ['access-log', 'watch'];

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

    /** A copy listening on $listen (the port the probe bound for --listen=…:0 --reuse-port). */
    public function withListen(string $listen): self
    {
        return new self(...['listen' => $listen] + \get_object_vars($this));
    }

    /**
     * @param list<string> $arguments positional arguments after the command name
     * @param array<string, string|true> $flags
     * @param array<string, string> $env
     */
    public static function parse(array $arguments, array $flags, array $env): self
    {
        foreach ($flags as $flag => $given) {
            self::checkFlag($flag, $given);
        }
        if (\count($arguments) !== 1) {
            throw new ConsoleException('Usage: bin/petrel start APP [--listen=127.0.0.1:8080] [--workers=N] [--mode=coroutine|sync] [--max-requests=N] [--pid-file=PATH] [--daemon]');
        }
        // A flag always has a value here (checkFlag()); an empty environment variable is unset.
        $value = static function (string $flag, ?string $envName, string $default) use ($flags, $env): string {
            $given = $flags[$flag] ?? ($envName !== null ? ($env[$envName] ?? '') : '');

            return $given === '' || $given === true ? $default : $given;
        };
        $app = $arguments[0];
        $maxMemory = OptionValue::bytes('max-memory', $value('max-memory', null, '0'));
        $memoryLimit = isset($flags['memory-limit']) ? self::memoryLimit($value('memory-limit', null, '')) : \max(self::DEFAULT_MEMORY_LIMIT, 2 * $maxMemory);
        if ($maxMemory > 0 && $memoryLimit !== -1 && $memoryLimit <= $maxMemory) {
            throw new ConsoleException("--memory-limit must be above --max-memory (a worker is replaced at --max-memory; memory_limit kills the request that passes it)");
        }
        $listen = OptionValue::address('listen', $value('listen', 'PETREL_LISTEN', '127.0.0.1:8080'), unix: true);
        $workers = OptionValue::processes('workers', $value('workers', 'PETREL_WORKERS', (string) \min(self::cpuCount(), OptionValue::MAX_PROCESSES)));
        $mode = $value('mode', 'PETREL_MODE', ServerConfig::MODE_COROUTINE);
        if ($mode !== ServerConfig::MODE_COROUTINE && $mode !== ServerConfig::MODE_SYNC) {
            throw new ConsoleException("Unknown mode \"{$mode}\": use --mode=coroutine or --mode=sync");
        }

        return new self(
            app: $app,
            listen: $listen,
            workers: $workers,
            mode: $mode,
            maxRequests: OptionValue::count('max-requests', $value('max-requests', null, '0'), allowZero: true),
            pidFile: $value('pid-file', null, PidFile::forAddress($listen)->path),
            daemon: isset($flags['daemon']),
            reusePort: isset($flags['reuse-port']),
            debug: isset($flags['debug']),
            gzip: isset($flags['gzip']),
            accessLog: isset($flags['access-log']) ? $value('access-log', null, 'php://stderr') : null,
            logFile: isset($flags['log-file']) ? $value('log-file', null, '') : null,
            maxBodyBytes: OptionValue::bytes('max-body', $value('max-body', null, '32M')),
            gracefulTimeout: OptionValue::seconds('graceful-timeout', $value('graceful-timeout', null, '30')),
            headerTimeout: OptionValue::seconds('header-timeout', $value('header-timeout', null, '60')),
            idleTimeout: OptionValue::seconds('idle-timeout', $value('idle-timeout', null, '75')),
            staticDir: isset($flags['static']) ? OptionValue::directory('static', $value('static', null, '')) : null,
            maxMemory: $maxMemory,
            memoryLimit: $memoryLimit,
            maxConnections: isset($flags['max-connections']) ? OptionValue::count('max-connections', $value('max-connections', null, '')) : null,
            taskWorkers: OptionValue::processes('task-workers', $value('task-workers', null, '0'), allowZero: true),
            taskQueue: OptionValue::count('task-queue', $value('task-queue', null, '64')),
            taskTimeout: OptionValue::seconds('task-timeout', $value('task-timeout', null, '60')),
            modeGiven: isset($flags['mode']) || ($env['PETREL_MODE'] ?? '') !== '',
            metrics: isset($flags['metrics']) ? OptionValue::address('metrics', $value('metrics', null, ''), barePort: true) : null,
            blockThreshold: OptionValue::milliseconds('block-threshold', $value('block-threshold', null, '100')),
            watch: isset($flags['watch']) ? self::watchDirectories($flags['watch'], $app) : [],
            leakCheck: isset($flags['leak-check']),
            accessLogFormat: self::accessLogFormat($value('access-log-format', null, ServerConfig::ACCESS_LOG_COMBINED)),
        );
    }

    /**
     * Refuses an unknown flag, a value on a boolean flag (--debug=false would turn it on), and
     * a flag given with nothing after "=" (it used to mean the default, silently).
     */
    private static function checkFlag(string $flag, string|true $given): void
    {
        if (\in_array($flag, self::BOOLEAN_FLAGS, true)) {
            if ($given !== true) {
                throw new ConsoleException("Option --{$flag} takes no value, got \"--{$flag}={$given}\" (leave the option out to turn it off)");
            }
        } elseif (!\in_array($flag, self::VALUE_FLAGS, true)) {
            throw new ConsoleException("Unknown option --{$flag} for start (see bin/petrel --help)");
        } elseif ($given === '' || ($given === true && !\in_array($flag, self::OPTIONAL_VALUE_FLAGS, true))) {
            throw new ConsoleException("Option --{$flag} needs a value (--{$flag}=...)");
        }
    }

    /**
     * -1 (none) or a SIZE from MIN_MEMORY_LIMIT up: PHP refuses a memory_limit below what the
     * worker already uses, and a worker holds 4 MiB before it loads the APP.
     */
    private static function memoryLimit(string $value): int
    {
        if ($value === '-1') {
            return -1;
        }
        $bytes = OptionValue::bytes('memory-limit', $value);
        if ($bytes < self::MIN_MEMORY_LIMIT) {
            throw new ConsoleException("--memory-limit must be at least 16M (or -1 for none), got \"{$value}\"");
        }

        return $bytes;
    }

    /**
     * --watch alone: the APP's directory; --watch=DIR,DIR: those.
     *
     * @return list<string>
     */
    private static function watchDirectories(string|true $value, string $app): array
    {
        $given = $value === true ? [\dirname($app)] : \explode(',', $value);
        $directories = [];
        foreach ($given as $directory) {
            $directories[] = OptionValue::directory('watch', \trim($directory));
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
}
