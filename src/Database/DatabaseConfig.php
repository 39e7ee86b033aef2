<?php

declare(strict_types=1);

namespace Petrel\Database;

/**
 * Where a database is, from a URL:
 *   mysql://user:pass@host:3306/db?charset=utf8mb4&tls=require   (also mariadb://)
 *   pgsql://user:pass@host:5432/db?sslmode=prefer                (also postgres://, postgresql://)
 *   sqlite:///absolute/path.db  ·  sqlite://relative/path.db  ·  sqlite::memory:
 * A host of the form /path (percent-encoded) or ?socket=/path selects a Unix socket.
 */
final class DatabaseConfig
{
    /** @param array<string, string> $options */
    public function __construct(
        public readonly string $driver,
        public readonly ?string $host = null,
        public readonly ?int $port = null,
        public readonly ?string $user = null,
        #[\SensitiveParameter] public readonly ?string $password = null,
        public readonly ?string $database = null,
        public readonly ?string $socket = null,
        public readonly array $options = [],
    ) {
    }

    public static function fromEnv(string $variable = 'DATABASE_URL', #[\SensitiveParameter] ?string $default = null): self
    {
        $url = \getenv($variable);
        if (!\is_string($url) || $url === '') {
            if ($default === null) {
                throw new \InvalidArgumentException("{$variable} is not set");
            }
            $url = $default;
        }

        return self::fromUrl($url);
    }

    public static function fromUrl(#[\SensitiveParameter] string $url): self
    {
        if ($url === 'sqlite::memory:' || $url === 'sqlite://:memory:') {
            return new self('sqlite', database: ':memory:');
        }
        if (\preg_match('#^sqlite://(.+)$#', $url, $m)) {
            return new self('sqlite', database: \rawurldecode($m[1]));
        }
        $parts = \parse_url($url);
        if ($parts === false || !isset($parts['scheme'])) {
            throw new \InvalidArgumentException('Malformed database URL (expected mysql://, pgsql:// or sqlite://): ' . self::redact($url));
        }
        $driver = match (\strtolower($parts['scheme'])) {
            'mysql', 'mariadb' => 'mysql',
            'pgsql', 'postgres', 'postgresql' => 'pgsql',
            default => throw new \InvalidArgumentException("Unsupported database scheme \"{$parts['scheme']}\" (use mysql://, pgsql:// or sqlite://)"),
        };
        \parse_str($parts['query'] ?? '', $query);
        $options = [];
        foreach ($query as $key => $value) {
            if (\is_string($value)) {
                $options[(string) $key] = $value;
            }
        }
        $host = isset($parts['host']) ? \rawurldecode($parts['host']) : null;
        $socket = $options['socket'] ?? null;
        if ($host !== null && \str_starts_with($host, '/')) {
            $socket = $host;
            $host = null;
        }
        unset($options['socket']);
        $path = isset($parts['path']) ? \ltrim($parts['path'], '/') : '';

        return new self(
            driver: $driver,
            host: $host,
            port: $parts['port'] ?? null,
            user: isset($parts['user']) ? \rawurldecode($parts['user']) : null,
            password: isset($parts['pass']) ? \rawurldecode($parts['pass']) : null,
            database: $path !== '' ? \rawurldecode($path) : null,
            socket: $socket,
            options: $options,
        );
    }

    /**
     * The URL with the password replaced, for messages and logs. The password runs to the
     * last `@`: one written with a raw `@` (or `/`, `?`, `#`) is what makes a URL malformed,
     * so none of it may show; a later `@` in the query hides the host too, which is the
     * safe side.
     */
    public static function redact(#[\SensitiveParameter] string $url): string
    {
        return (string) \preg_replace('#(://[^:/@]*:).*@#s', '$1***@', $url);
    }

    /**
     * The fields, with the password masked: var_dump() and print_r() of a config (or of
     * a Database holding one, in a debug page or a log) do not show it.
     *
     * @return array<string, mixed>
     */
    public function __debugInfo(): array
    {
        $fields = \get_object_vars($this);
        if ($fields['password'] !== null) {
            $fields['password'] = '***';
        }

        return $fields;
    }

    /** "host:port" or the socket path, for error messages. */
    public function where(): string
    {
        if ($this->driver === 'sqlite') {
            return (string) $this->database;
        }

        return $this->socket ?? (($this->host ?? 'localhost') . ':' . ($this->port ?? ($this->driver === 'mysql' ? 3306 : 5432)));
    }
}
