<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;

/**
 * The MySQL options of a DatabaseConfig (the URL's query string), checked and with defaults:
 *
 *   charset=utf8mb4           connection character set (or a collation: utf8mb4_unicode_ci…)
 *   tls=prefer|disable|require|verify
 *                             default prefer, but disable for loopback hosts and Unix sockets:
 *                             there TLS protects nothing and costs CPU on every query
 *   tls_ca=/path/ca.pem       CA file for tls=verify (default: the system store)
 *   connect_timeout=10        seconds for TCP connect + handshake + authentication
 *   statement_cache=256       prepared statements kept per connection for queries with
 *                             parameters (LRU; 0 = prepare and close every time)
 *   kill_on_cancel=1          after a timeout or cancellation mid-query, send KILL QUERY for it
 *                             from a fresh connection, so it does not run on in the server
 *   server_public_key=/path   PEM RSA key for caching_sha2_password without TLS
 *   public_key_retrieval=0|1  ask the server for that key (default: 1 on loopback, 0 elsewhere,
 *                             as a man in the middle could substitute it)
 *
 * Unknown options are ignored (the URL may carry options for other layers).
 *
 * @internal
 */
final class ClientOptions
{
    /** Collation ids the handshake can announce directly (one byte); others use SET NAMES. */
    private const CHARSETS = [
        'utf8mb4' => Charset::UTF8MB4_GENERAL_CI,
        'utf8mb4_general_ci' => Charset::UTF8MB4_GENERAL_CI,
        'utf8mb4_unicode_ci' => Charset::UTF8MB4_UNICODE_CI,
        'utf8mb4_bin' => 46,
        'utf8' => 33,
        'utf8mb3' => 33,
        'utf8_general_ci' => 33,
        'latin1' => 8,
        'ascii' => 11,
        'binary' => Charset::BINARY,
    ];

    private function __construct(
        public readonly int $charsetId,
        /** A character set the handshake cannot name, to set with SET NAMES after login. */
        public readonly ?string $setNames,
        public readonly TlsMode $tls,
        public readonly ?string $tlsCa,
        public readonly float $connectTimeout,
        public readonly int $statementCache,
        public readonly bool $killOnCancel,
        public readonly ?string $serverPublicKey,
        public readonly bool $publicKeyRetrieval,
        /** Loopback host or Unix socket. */
        public readonly bool $local,
    ) {
    }

    public static function from(DatabaseConfig $config): self
    {
        $o = $config->options;
        $local = $config->socket !== null || self::isLoopback($config->host ?? 'localhost');
        $charset = \strtolower($o['charset'] ?? 'utf8mb4');
        if (!\preg_match('/^[a-z0-9_]+$/', $charset)) {
            throw new DatabaseError("Invalid MySQL charset \"{$charset}\"");
        }
        $tls = TlsMode::tryFrom(\strtolower($o['tls'] ?? ($local ? 'disable' : 'prefer')))
            ?? throw new DatabaseError("Invalid MySQL option tls=\"{$o['tls']}\": use disable, prefer, require or verify");
        $keyFile = $o['server_public_key'] ?? null;
        $key = null;
        if ($keyFile !== null) {
            $key = @\file_get_contents($keyFile);
            if ($key === false) {
                throw new DatabaseError("Cannot read the MySQL server public key file {$keyFile}");
            }
        }

        return new self(
            self::CHARSETS[$charset] ?? Charset::UTF8MB4_GENERAL_CI,
            isset(self::CHARSETS[$charset]) ? null : $charset,
            $tls,
            $o['tls_ca'] ?? null,
            self::number($o, 'connect_timeout', 10.0, 0.001),
            (int) self::number($o, 'statement_cache', 256, 0),
            self::flag($o, 'kill_on_cancel', true),
            $key,
            self::flag($o, 'public_key_retrieval', $local),
            $local,
        );
    }

    public static function isLoopback(string $host): bool
    {
        $host = \trim($host, '[]');

        return $host === 'localhost' || $host === '::1' || \str_starts_with($host, '127.');
    }

    /** @param array<string, string> $options */
    private static function number(array $options, string $name, float $default, float $min): float
    {
        if (!isset($options[$name])) {
            return $default;
        }
        $value = $options[$name];
        if (!\is_numeric($value) || (float) $value < $min) {
            throw new DatabaseError("Invalid MySQL option {$name}=\"{$value}\": expected a number of at least {$min}");
        }

        return (float) $value;
    }

    /** @param array<string, string> $options */
    private static function flag(array $options, string $name, bool $default): bool
    {
        if (!isset($options[$name])) {
            return $default;
        }

        return match (\strtolower($options[$name])) {
            '1', 'true', 'yes', 'on' => true,
            '0', 'false', 'no', 'off' => false,
            default => throw new DatabaseError("Invalid MySQL option {$name}=\"{$options[$name]}\": expected 1 or 0"),
        };
    }
}
