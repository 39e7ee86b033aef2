<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\DatabaseConfig;

/**
 * The libpq connection string for a DatabaseConfig, every value quoted ('…' with backslash
 * escapes), so no value can inject another keyword.
 *
 * Options read from the config (URL query): sslmode (default prefer), connect_timeout
 * (seconds, default 10; Petrel enforces it, libpq's own timer does not run in async mode),
 * application_name (default petrel), client_connection_check_interval (ms, default 1000,
 * 0 = leave the server's setting; see PgsqlConnection on cancellation), statement_cache
 * (prepared statements kept per connection, default 100, 0 = off), and libpq's TLS,
 * keepalive and session keywords listed in PASSTHROUGH. client_encoding is always UTF8.
 *
 * @internal
 */
final class ConnInfo
{
    public const DEFAULT_PORT = 5432;
    public const DEFAULT_CONNECT_TIMEOUT = 10.0;
    public const DEFAULT_CHECK_INTERVAL_MS = 1000;
    public const DEFAULT_STATEMENT_CACHE = 100;

    private const PASSTHROUGH = [
        'sslcert', 'sslkey', 'sslrootcert', 'sslcrl', 'sslcrldir', 'sslsni', 'sslpassword',
        'ssl_min_protocol_version', 'ssl_max_protocol_version', 'sslcompression', 'gssencmode',
        'channel_binding', 'require_auth', 'krbsrvname', 'target_session_attrs', 'options',
        'keepalives', 'keepalives_idle', 'keepalives_interval', 'keepalives_count', 'tcp_user_timeout',
        'passfile', 'service',
    ];

    public static function build(DatabaseConfig $config): string
    {
        [$host, $port] = self::address($config);
        $options = $config->options;
        $pairs = [
            'host' => $host,
            'port' => (string) $port,
            'user' => $config->user,
            'password' => $config->password,
            'dbname' => $config->database,
            'sslmode' => $options['sslmode'] ?? 'prefer',
            'connect_timeout' => (string) \max(2, (int) \ceil(self::connectTimeout($config))),
            'application_name' => $options['application_name'] ?? 'petrel',
            'client_encoding' => 'UTF8',
        ];
        foreach (self::PASSTHROUGH as $keyword) {
            if (isset($options[$keyword])) {
                $pairs[$keyword] = $options[$keyword];
            }
        }
        $conninfo = [];
        foreach ($pairs as $keyword => $value) {
            if ($value !== null) {
                $conninfo[] = $keyword . '=' . self::quote($value);
            }
        }

        return \implode(' ', $conninfo);
    }

    public static function quote(string $value): string
    {
        return "'" . \addcslashes($value, "'\\") . "'";
    }

    public static function connectTimeout(DatabaseConfig $config): float
    {
        $value = $config->options['connect_timeout'] ?? null;

        return \is_numeric($value) && (float) $value > 0 ? (float) $value : self::DEFAULT_CONNECT_TIMEOUT;
    }

    public static function checkIntervalMs(DatabaseConfig $config): int
    {
        $value = $config->options['client_connection_check_interval'] ?? null;

        return \is_numeric($value) ? \max(0, (int) $value) : self::DEFAULT_CHECK_INTERVAL_MS;
    }

    public static function statementCache(DatabaseConfig $config): int
    {
        $value = $config->options['statement_cache'] ?? null;

        return \is_numeric($value) ? \max(0, (int) $value) : self::DEFAULT_STATEMENT_CACHE;
    }

    /**
     * Host (or Unix socket directory) and port. A socket given as the socket file itself
     * (/run/postgresql/.s.PGSQL.5432) is split into directory and port, as libpq wants. An
     * IPv6 address loses the brackets a URL needs around it ([::1]): libpq's host keyword
     * takes it bare, and would try to resolve "[::1]" as a host name.
     *
     * @return array{string, int}
     */
    public static function address(DatabaseConfig $config): array
    {
        $port = $config->port ?? self::DEFAULT_PORT;
        if ($config->socket === null || $config->socket === '') {
            $host = $config->host ?? 'localhost';
            if (\str_starts_with($host, '[') && \str_ends_with($host, ']')) {
                $host = \substr($host, 1, -1);
            }

            return [$host, $port];
        }
        if (\preg_match('#^(.*)/\.s\.PGSQL\.(\d+)$#', $config->socket, $m) === 1) {
            return [$m[1] === '' ? '/' : $m[1], (int) $m[2]];
        }

        return [\rtrim($config->socket, '/') ?: '/', $port];
    }
}
