<?php

declare(strict_types=1);

namespace Petrel\Redis;

use Petrel\Redis\Internal\RedisUrl;
use Petrel\Socket\TlsOptions;

/**
 * Where and how to connect to Redis. Immutable; change with with*().
 *
 *     RedisConfig::fromUrl('redis://user:secret@10.0.0.5:6379/2');
 *     RedisConfig::fromUrl('rediss://:secret@cache.internal');      // TLS, peer verified
 *     RedisConfig::fromUrl('unix:///run/redis.sock?db=1');
 *     RedisConfig::fromEnv();    // $REDIS_URL, else redis://127.0.0.1:6379/0
 *
 * URL syntax: `redis[s]://[[user]:password@]host[:port][/db][?options]` and
 * `unix://[[user]:password@]/path/to/socket[?options]`, options `db=N`, `timeout=SECONDS`
 * (connect timeout), `protocol=2|3`. User, password and socket path are percent-decoded;
 * IPv6 hosts go in brackets (`redis://[::1]:6379`). A password alone is written
 * `:password@` (AUTH password); with a user name, ACL authentication (AUTH user password).
 *
 * The password never appears in exception messages, var_dump() or print_r() output.
 */
final class RedisConfig
{
    public const DEFAULT_URL = 'redis://127.0.0.1:6379/0';
    public const DEFAULT_PORT = 6379;

    /**
     * @param string|null     $unixSocket     path of a Unix socket; when set, host and port are ignored
     * @param string|null     $username       ACL user; null authenticates with the password alone
     * @param string|null     $password       null: no AUTH
     * @param int             $database       index selected after connecting (SELECT)
     * @param float           $connectTimeout seconds for connecting and the handshake together
     * @param TlsOptions|null $tls            null: plain TCP
     * @param int             $protocol       2 (RESP2) or 3 (RESP3, negotiated with HELLO 3)
     * @throws \InvalidArgumentException on an invalid value
     */
    public function __construct(
        public readonly string $host = '127.0.0.1',
        public readonly int $port = self::DEFAULT_PORT,
        public readonly ?string $unixSocket = null,
        public readonly ?string $username = null,
        #[\SensitiveParameter] public readonly ?string $password = null,
        public readonly int $database = 0,
        public readonly float $connectTimeout = 5.0,
        public readonly ?TlsOptions $tls = null,
        public readonly int $protocol = 2,
    ) {
        $problem = match (true) {
            $unixSocket === null && $host === '' => 'the host is empty',
            $unixSocket === '' => 'the Unix socket path is empty',
            $port < 1 || $port > 65535 => "the port must be between 1 and 65535, {$port} given",
            $database < 0 => "the database index must be >= 0, {$database} given",
            $connectTimeout <= 0 || \is_nan($connectTimeout) => "the connect timeout must be > 0 seconds, {$connectTimeout} given", // not !(… > 0): opcache makes it <= 0, false for NaN
            $protocol !== 2 && $protocol !== 3 => "the protocol must be 2 or 3, {$protocol} given",
            $username !== null && $password === null => 'a username needs a password',
            default => null,
        };
        if ($problem !== null) {
            throw new \InvalidArgumentException("Invalid Redis configuration: {$problem}");
        }
    }

    /**
     * @throws \InvalidArgumentException naming what is wrong with the URL (the password is masked)
     */
    public static function fromUrl(#[\SensitiveParameter] string $url): self
    {
        return RedisUrl::parse($url);
    }

    /**
     * The configuration in environment variable $variable (REDIS_URL by default), or
     * redis://127.0.0.1:6379/0 when it is unset or empty.
     *
     * @throws \InvalidArgumentException when the variable holds an invalid URL
     */
    public static function fromEnv(string $variable = 'REDIS_URL'): self
    {
        $url = \getenv($variable);
        if (!\is_string($url) || $url === '') {
            return self::fromUrl(self::DEFAULT_URL);
        }
        try {
            return self::fromUrl($url);
        } catch (\InvalidArgumentException $e) {
            throw new \InvalidArgumentException("\${$variable}: {$e->getMessage()}", 0, $e);
        }
    }

    public function withDatabase(int $database): self
    {
        return $this->with(['database' => $database]);
    }

    /** @param string|null $username null authenticates with the password alone */
    public function withPassword(#[\SensitiveParameter] ?string $password, ?string $username = null): self
    {
        return $this->with(['password' => $password, 'username' => $username]);
    }

    public function withConnectTimeout(float $seconds): self
    {
        return $this->with(['connectTimeout' => $seconds]);
    }

    /** TLS with $options (peer verified by default); null for plain TCP. */
    public function withTls(?TlsOptions $options = new TlsOptions()): self
    {
        return $this->with(['tls' => $options]);
    }

    /** 2 (RESP2) or 3 (RESP3). */
    public function withProtocol(int $protocol): self
    {
        return $this->with(['protocol' => $protocol]);
    }

    /** "host:port" or the socket path, for messages; never contains credentials. */
    public function endpoint(): string
    {
        if ($this->unixSocket !== null) {
            return $this->unixSocket;
        }

        return \str_contains($this->host, ':') ? "[{$this->host}]:{$this->port}" : "{$this->host}:{$this->port}";
    }

    /** The address for {@see \Petrel\Socket\connect()}: "tcp://host:port" or "unix:///path". */
    public function socketAddress(): string
    {
        return $this->unixSocket !== null ? 'unix://' . $this->unixSocket : 'tcp://' . $this->endpoint();
    }

    /** @return array<string, mixed> the fields, with the password masked */
    public function __debugInfo(): array
    {
        $fields = \get_object_vars($this);
        if ($fields['password'] !== null) {
            $fields['password'] = '***';
        }

        return $fields;
    }

    /** @param array<string, mixed> $changes */
    private function with(array $changes): self
    {
        return new self(...\array_merge(\get_object_vars($this), $changes));
    }
}
