<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Server\Launcher;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;
use Throwable;

/** The facts a reader needs to weigh the figures: hardware, OS, versions, PHP settings. */
final class Machine
{
    /**
     * @param bool $node whether the node WebSocket load generator ran (its version is listed then)
     * @return array<string, string>
     */
    public static function facts(LoadGenerator $load, ?string $mysqlUrl, bool $node = false): array
    {
        $cpuinfo = (string) @\file_get_contents('/proc/cpuinfo');
        \preg_match('/^model name\s*:\s*(.+)$/m', $cpuinfo, $model);
        $meminfo = (string) @\file_get_contents('/proc/meminfo');
        \preg_match('/^MemTotal:\s+(\d+) kB/m', $meminfo, $memory);
        $release = (string) @\file_get_contents('/etc/os-release');
        \preg_match('/^PRETTY_NAME="?([^"\n]+)"?/m', $release, $os);
        $jitMode = \getenv('PETREL_JIT') ?: 'off';
        $jit = match (true) {
            \getenv('PETREL_NO_JIT') !== false => 'opcache and JIT off (PETREL_NO_JIT is set)',
            $jitMode === 'off' => 'opcache.enable_cli=1 opcache.jit=disable (set by bin/petrel start)',
            default => "opcache.enable_cli=1 opcache.jit={$jitMode} opcache.jit_buffer_size=64M (PETREL_JIT, set by bin/petrel start)",
        };

        return \array_filter([
            'cpu' => \trim($model[1] ?? 'unknown'),
            'cores' => (string) self::cores(),
            'memory' => isset($memory[1]) ? \sprintf('%.1f GiB', (int) $memory[1] / 1048576) : 'unknown',
            'os' => ($os[1] ?? \PHP_OS) . ', kernel ' . \php_uname('r'),
            'php' => \PHP_VERSION,
            'petrel_php_settings' => $jit,
            'php_fpm_settings' => \implode(' ', \array_map(static fn (string $k, string $v): string => "{$k}={$v}", \array_keys(Launcher::FPM_INI), Launcher::FPM_INI)),
            'php_fpm' => self::version(['php-fpm' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION, 'php-fpm'], '-v', '/^(PHP \S+)/'),
            'nginx' => self::version(['nginx'], '-v', '/nginx\/(\S+)/'),
            'mariadb' => $mysqlUrl === null ? '' : self::mysqlVersion($mysqlUrl),
            'load_generator' => $load->name() === 'ab'
                ? self::version(['ab'], '-V', '/(ApacheBench, Version \S+)/')
                : self::version(['wrk'], '-v', '/^(wrk \S+)/'),
            'websocket_load_generator' => $node ? self::nodeVersion() : '',
        ], static fn (string $value): bool => $value !== '');
    }

    /** "node vX, ws Y (bench/ws-load.mjs)": ws from tests/Interop/node, where the script finds it. */
    private static function nodeVersion(): string
    {
        $node = self::version(['node'], '--version', '/^(v\S+)/');
        if ($node === '') {
            return '';
        }
        $package = \json_decode((string) @\file_get_contents(\dirname(__DIR__, 2) . '/tests/Interop/node/node_modules/ws/package.json'), true);

        $ws = \is_array($package) && \is_string($package['version'] ?? null) ? ", ws {$package['version']}" : '';

        return "node {$node}{$ws} (bench/ws-load.mjs)";
    }

    public static function cores(): int
    {
        $count = \preg_match_all('/^processor\s*:/m', (string) @\file_get_contents('/proc/cpuinfo'));

        return \max(1, (int) $count);
    }

    /**
     * CLK_TCK and the page size, for reading /proc (Linux: almost always 100 and 4096).
     *
     * @return array{int, int}
     */
    public static function procUnits(): array
    {
        $ticks = (int) \trim((string) @\shell_exec('getconf CLK_TCK 2>/dev/null'));
        $page = (int) \trim((string) @\shell_exec('getconf PAGESIZE 2>/dev/null'));

        return [$ticks > 0 ? $ticks : 100, $page > 0 ? $page : 4096];
    }

    /** @param list<string> $binaries the first one installed is asked */
    private static function version(array $binaries, string $flag, string $pattern): string
    {
        foreach ($binaries as $binary) {
            $path = Workspace::which($binary);
            if ($path !== null) {
                $output = (string) @\shell_exec(\escapeshellarg($path) . ' ' . $flag . ' 2>&1');
                foreach (\explode("\n", $output) as $line) {
                    if (\preg_match($pattern, \trim($line), $match)) {
                        return $match[1];
                    }
                }
            }
        }

        return '';
    }

    /** The max_connections of the MariaDB/MySQL at $url, or null if it cannot be asked. */
    public static function mysqlMaxConnections(string $url): ?int
    {
        try {
            $max = self::mysqlValue($url, 'SELECT @@max_connections');

            return \is_numeric($max) ? (int) $max : null;
        } catch (Throwable) {
            return null; // the scenario reports the server as it fails to reach it
        }
    }

    private static function mysqlVersion(string $url): string
    {
        try {
            $version = self::mysqlValue($url, 'SELECT VERSION()');

            return \is_scalar($version) ? (string) $version : '';
        } catch (Throwable $error) {
            return 'unknown (' . $error->getMessage() . ')';
        }
    }

    /**
     * The one value $sql selects, on a connection of its own to $url, closed after.
     *
     * @throws Throwable when the server cannot be reached or the query fails
     */
    private static function mysqlValue(string $url, string $sql): mixed
    {
        return \Petrel\run(static function () use ($url, $sql): mixed {
            $connection = MysqlConnection::connect(DatabaseConfig::fromUrl($url));
            try {
                $row = $connection->query($sql)[0] ?? [];

                return $row === [] ? null : \reset($row);
            } finally {
                $connection->close();
            }
        });
    }
}
