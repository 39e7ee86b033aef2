<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Redis\RedisConfig;
use Petrel\Socket\TlsOptions;

/**
 * Parses Redis URLs into a {@see RedisConfig} (syntax documented there).
 *
 * The credentials end at the last "@" (for unix://, at the last "@/" when there is one),
 * so a password with an unescaped "/", "?", "#" or "@" still parses. Error messages show
 * the URL with the password replaced by "***".
 *
 * @internal
 */
final class RedisUrl
{
    private const OPTIONS = ['db', 'timeout', 'protocol'];

    private function __construct()
    {
    }

    /** @throws \InvalidArgumentException */
    public static function parse(#[\SensitiveParameter] string $url): RedisConfig
    {
        if (\preg_match('#^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$#sD', $url, $m) !== 1) {
            $shown = \str_contains($url, '@') ? '(not shown: it may hold a password)' : self::quote($url);
            throw new \InvalidArgumentException(
                "Invalid Redis URL {$shown}: expected redis://host:port/db, rediss://… or unix:///path",
            );
        }
        $scheme = \strtolower($m[1]);
        [$userinfo, $rest] = self::splitUserinfo($scheme, $m[2]);
        [$username, $password, $shownUserinfo] = self::credentials($userinfo);
        $shown = self::quote("{$scheme}://{$shownUserinfo}{$rest}");
        $fail = static fn (string $problem): \InvalidArgumentException => new \InvalidArgumentException(
            "Invalid Redis URL {$shown}: {$problem}",
        );
        if ($scheme !== 'redis' && $scheme !== 'rediss' && $scheme !== 'unix') {
            throw $fail("unsupported scheme '{$scheme}' (expected redis://, rediss:// or unix://)");
        }
        if ($username !== null && $password === null) {
            throw $fail('a username needs a password (for a password alone write redis://:PASSWORD@host)');
        }
        if (\str_contains($rest, '#')) {
            throw $fail('a URL fragment ("#…") is not allowed');
        }
        [$rest, $query] = \explode('?', $rest, 2) + [1 => ''];
        $options = self::options($query, $fail);
        [$host, $port, $socket, $database] = self::location($scheme, $rest, $fail);
        if (isset($options['db'])) {
            if ($database !== null) {
                throw $fail('the database is given twice (path and ?db=)');
            }
            $database = self::nonNegative($options['db'], 'the database index', $fail);
        }
        $timeout = $options['timeout'] ?? '5';
        if (!\is_numeric($timeout) || (float) $timeout <= 0) {
            throw $fail('timeout must be a number of seconds > 0, ' . self::quote($timeout) . ' given');
        }
        $protocol = $options['protocol'] ?? '2';
        if ($protocol !== '2' && $protocol !== '3') {
            throw $fail('protocol must be 2 or 3, ' . self::quote($protocol) . ' given');
        }

        return new RedisConfig(
            host: $host,
            port: $port,
            unixSocket: $socket,
            username: $username,
            password: $password,
            database: $database ?? 0,
            connectTimeout: (float) $timeout,
            tls: $scheme === 'rediss' ? new TlsOptions() : null,
            protocol: (int) $protocol,
        );
    }

    /**
     * @return array{?string, ?string, string} user name, password (decoded; null when absent
     *                                         or empty) and the credentials as shown in messages
     */
    private static function credentials(#[\SensitiveParameter] ?string $userinfo): array
    {
        if ($userinfo === null) {
            return [null, null, ''];
        }
        $colon = \strpos($userinfo, ':');
        $rawUser = $colon === false ? $userinfo : \substr($userinfo, 0, $colon);
        $password = $colon === false ? '' : \rawurldecode(\substr($userinfo, $colon + 1));

        return [
            $rawUser === '' ? null : \rawurldecode($rawUser),
            $password === '' ? null : $password,
            $rawUser . ($colon === false ? '' : ':***') . '@',
        ];
    }

    /**
     * @param \Closure(string): \InvalidArgumentException $fail
     * @return array{string, int, ?string, ?int} host, port, socket path, database from the path
     */
    private static function location(string $scheme, string $rest, \Closure $fail): array
    {
        if ($scheme === 'unix') {
            if ($rest === '' || $rest[0] !== '/') {
                throw $fail('expected an absolute socket path, as in unix:///run/redis.sock');
            }

            return ['127.0.0.1', RedisConfig::DEFAULT_PORT, \rawurldecode($rest), null];
        }
        [$authority, $path] = \explode('/', $rest, 2) + [1 => ''];
        [$host, $port] = self::hostPort($authority, $fail);
        $database = $path === '' ? null : self::nonNegative($path, 'the database index', $fail);

        return [$host, $port, null, $database];
    }

    /** @return array{?string, string} the raw credentials (null if none) and the rest */
    private static function splitUserinfo(string $scheme, string $rest): array
    {
        if ($scheme === 'unix') {
            if ($rest === '' || $rest[0] === '/') {
                return [null, $rest];
            }
            $at = \strrpos($rest, '@/');
            if ($at !== false) {
                return [\substr($rest, 0, $at), \substr($rest, $at + 1)];
            }
        }
        $at = \strrpos($rest, '@');
        if ($at === false) {
            return [null, $rest];
        }

        return [\substr($rest, 0, $at), \substr($rest, $at + 1)];
    }

    /**
     * @param \Closure(string): \InvalidArgumentException $fail
     * @return array{string, int}
     */
    private static function hostPort(string $authority, \Closure $fail): array
    {
        if (\preg_match('/^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(.*))?$/sD', $authority, $m) !== 1) {
            $what = $authority === '' ? 'the host is missing' : 'invalid host ' . self::quote($authority);
            throw $fail($what . ' (expected host, host:port or [ipv6]:port)');
        }
        $host = ($m[1] ?? '') !== '' ? $m[1] : ($m[2] ?? '');
        if (!isset($m[3])) {
            return [$host, RedisConfig::DEFAULT_PORT];
        }
        $port = \ctype_digit($m[3]) && \strlen($m[3]) <= 5 ? (int) $m[3] : 0;
        if ($port < 1 || $port > 65535) {
            throw $fail('the port must be a number between 1 and 65535, ' . self::quote($m[3]) . ' given');
        }

        return [$host, $port];
    }

    /**
     * @param \Closure(string): \InvalidArgumentException $fail
     * @return array<string, string>
     */
    private static function options(string $query, \Closure $fail): array
    {
        $options = [];
        foreach ($query === '' ? [] : \explode('&', $query) as $pair) {
            [$name, $value] = \str_contains($pair, '=') ? \explode('=', $pair, 2) : [$pair, ''];
            $name = \rawurldecode($name);
            if (!\in_array($name, self::OPTIONS, true)) {
                throw $fail('unknown option ' . self::quote($name) . ' (known: ' . \implode(', ', self::OPTIONS) . ')');
            }
            if ($value === '') {
                throw $fail("option '{$name}' needs a value");
            }
            $options[$name] = \rawurldecode($value);
        }

        return $options;
    }

    /** @param \Closure(string): \InvalidArgumentException $fail */
    private static function nonNegative(string $text, string $what, \Closure $fail): int
    {
        if (!\ctype_digit($text) || \strlen($text) > 9) {
            throw $fail("{$what} must be a non-negative integer, " . self::quote($text) . ' given');
        }

        return (int) $text;
    }

    private static function quote(string $text): string
    {
        $shown = \strlen($text) > 200 ? \substr($text, 0, 200) . '…' : $text;

        return "'" . \addcslashes($shown, "\0..\37'\\\177") . "'";
    }
}
