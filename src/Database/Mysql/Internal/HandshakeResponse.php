<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * Encodes the client's answers to the greeting: SSLRequest and HandshakeResponse41.
 *
 * Both start with capabilities (4), max packet size (4), charset (1) and 23 filler bytes
 * (MariaDB reads the last 4 as extended client capabilities when the client leaves
 * CLIENT_MYSQL unset; we request none, so they stay zero). HandshakeResponse41 goes on with
 * the user name (NUL-terminated), the auth response (length-encoded with
 * PLUGIN_AUTH_LENENC_CLIENT_DATA, else one length byte), the database (NUL-terminated, with
 * CONNECT_WITH_DB), the plugin name (NUL-terminated, with PLUGIN_AUTH) and the connection
 * attributes (length-encoded key/value strings, with CONNECT_ATTRS).
 */
final class HandshakeResponse
{
    /** The largest packet we announce we may send: the protocol maximum, 1 GiB. */
    public const MAX_PACKET_SIZE = 0x40000000;

    private function __construct()
    {
    }

    public static function sslRequest(int $capabilities, int $charset): string
    {
        return self::head($capabilities, $charset);
    }

    /** @param array<string, string> $attributes */
    public static function build(
        int $capabilities,
        int $charset,
        string $user,
        string $authResponse,
        string $database,
        string $pluginName,
        array $attributes = [],
    ): string {
        $payload = self::head($capabilities, $charset) . PayloadWriter::nulString($user);
        if (($capabilities & Capability::PLUGIN_AUTH_LENENC_CLIENT_DATA) !== 0) {
            $payload .= PayloadWriter::lenencString($authResponse);
        } else {
            if (\strlen($authResponse) > 255) {
                throw new \ValueError('Auth response too long for the server\'s handshake format');
            }
            $payload .= \chr(\strlen($authResponse)) . $authResponse;
        }
        if (($capabilities & Capability::CONNECT_WITH_DB) !== 0) {
            $payload .= PayloadWriter::nulString($database);
        }
        if (($capabilities & Capability::PLUGIN_AUTH) !== 0) {
            $payload .= PayloadWriter::nulString($pluginName);
        }
        if (($capabilities & Capability::CONNECT_ATTRS) !== 0) {
            $encoded = '';
            foreach ($attributes as $key => $value) {
                $encoded .= PayloadWriter::lenencString((string) $key) . PayloadWriter::lenencString($value);
            }
            $payload .= PayloadWriter::lenencString($encoded);
        }

        return $payload;
    }

    private static function head(int $capabilities, int $charset): string
    {
        return pack('VVC', $capabilities, self::MAX_PACKET_SIZE, $charset) . str_repeat("\0", 23);
    }
}
