<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;

/**
 * The server's greeting (Protocol::HandshakeV10):
 *
 *   0x0A, server version (NUL-terminated), connection id (4), auth-plugin-data part 1 (8),
 *   filler (1), capabilities low (2), charset (1), status (2), capabilities high (2),
 *   auth-plugin-data length (1), reserved (10; MariaDB: 6 + 4 bytes of extended
 *   capabilities when it leaves CLIENT_MYSQL unset), auth-plugin-data part 2
 *   (max(13, length - 8), ending with a NUL), auth plugin name (NUL-terminated).
 *
 * The nonce is part 1 + part 2 without the trailing NUL (20 bytes for the built-in plugins).
 */
final class HandshakeV10
{
    public function __construct(
        public readonly int $protocolVersion,
        /** As sent: MariaDB before 11 prefixes it with "5.5.5-" for old replication clients. */
        public readonly string $serverVersion,
        public readonly int $connectionId,
        public readonly string $nonce,
        /** The 32 standard capability bits. */
        public readonly int $capabilities,
        /** MariaDB's extended capabilities (0 for MySQL). */
        public readonly int $mariaDbCapabilities,
        public readonly int $charset,
        public readonly int $statusFlags,
        /** Empty when the server does not support CLIENT_PLUGIN_AUTH. */
        public readonly string $authPluginName,
    ) {
    }

    /**
     * @throws MysqlException   when the server greets with an ERR packet (e.g. too many connections)
     * @throws ProtocolException when the greeting is malformed or of another protocol version
     */
    public static function parse(string $payload): self
    {
        if (Packet::isErr($payload)) {
            throw ErrPacket::parse($payload)->toException();
        }
        $r = new PayloadReader($payload);
        $protocol = $r->int1();
        if ($protocol !== 10) {
            throw new ProtocolException(\sprintf('Unsupported handshake protocol version %d', $protocol));
        }
        $version = $r->nulString();
        $connectionId = $r->int4();
        $nonce = $r->bytes(8);
        $r->skip(1);
        $capabilities = $r->int2();
        $charset = 0;
        $status = 0;
        $authDataLength = 0;
        $mariaDb = 0;
        $plugin = '';
        if ($r->remaining() > 0) {
            $charset = $r->int1();
            $status = $r->int2();
            $capabilities |= $r->int2() << 16;
            $authDataLength = $r->int1();
            $r->skip(6);
            $extended = $r->int4();
            if (($capabilities & Capability::MYSQL) === 0) {
                $mariaDb = $extended;
            }
            if (($capabilities & Capability::SECURE_CONNECTION) !== 0) {
                $part2 = $r->bytes(min($r->remaining(), max(13, $authDataLength - 8)));
                $nonce .= str_ends_with($part2, "\0") ? substr($part2, 0, -1) : $part2;
            }
            if (($capabilities & Capability::PLUGIN_AUTH) !== 0) {
                // Some old servers omit the terminating NUL.
                $plugin = $r->nulStringOrRest();
            }
        }

        return new self(
            $protocol,
            $version,
            $connectionId,
            $nonce,
            $capabilities,
            $mariaDb,
            $charset,
            $status,
            $plugin,
        );
    }

    public function isMariaDb(): bool
    {
        return ($this->capabilities & Capability::MYSQL) === 0 || stripos($this->serverVersion, 'mariadb') !== false;
    }

    /** The server version without MariaDB's "5.5.5-" replication prefix. */
    public function version(): string
    {
        if (str_starts_with($this->serverVersion, '5.5.5-') && $this->isMariaDb()) {
            return substr($this->serverVersion, 6);
        }

        return $this->serverVersion;
    }

    public function supports(int $capability): bool
    {
        return ($this->capabilities & $capability) === $capability;
    }

    public function supportsTls(): bool
    {
        return $this->supports(Capability::SSL);
    }
}
