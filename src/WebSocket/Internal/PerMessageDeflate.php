<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

use Petrel\WebSocket\HandshakeException;

/**
 * permessage-deflate (RFC 7692) as agreed in a handshake, and the negotiation, pure.
 *
 * The server takes the first offer whose parameters it understands and accepts all of
 * them: it honours server_no_context_takeover and server_max_window_bits (8 is accepted
 * but means this side sends uncompressed: zlib cannot deflate with a 256-byte window),
 * echoes client_no_context_takeover, and leaves client_max_window_bits out of its answer
 * (it inflates with a 15-bit window, which reads any smaller one).
 */
final class PerMessageDeflate
{
    public const NAME = 'permessage-deflate';

    public function __construct(
        public readonly bool $serverNoContextTakeover = false,
        public readonly bool $clientNoContextTakeover = false,
        public readonly ?int $serverMaxWindowBits = null,
        public readonly ?int $clientMaxWindowBits = null,
    ) {
    }

    /**
     * Server side: the first acceptable permessage-deflate offer among the client's
     * Sec-WebSocket-Extensions values, or null (no compression).
     *
     * @param list<string> $headerValues
     */
    public static function negotiate(array $headerValues): ?self
    {
        foreach (ExtensionHeader::parse(\implode(',', $headerValues)) as [$name, $params]) {
            if ($name === self::NAME && ($accepted = self::fromOffer($params)) !== null) {
                return $accepted;
            }
        }

        return null;
    }

    /** Client side: the offer it sends. */
    public static function offer(): string
    {
        return self::NAME . '; client_max_window_bits';
    }

    /**
     * Client side: what the server's answer agreed to.
     *
     * @throws HandshakeException an answer the client did not offer or cannot honour
     */
    public static function fromResponse(string $header): self
    {
        $extensions = ExtensionHeader::parse($header);
        if (\count($extensions) !== 1 || $extensions[0][0] !== self::NAME) {
            throw new HandshakeException("The server answered with extensions that were not offered: {$header}");
        }
        $accepted = self::fromOffer($extensions[0][1]);
        if ($accepted === null) {
            throw new HandshakeException("Invalid permessage-deflate parameters in the server's answer: {$header}");
        }

        return $accepted;
    }

    /** Server side: the Sec-WebSocket-Extensions value of the answer. */
    public function response(): string
    {
        $value = self::NAME;
        if ($this->serverNoContextTakeover) {
            $value .= '; server_no_context_takeover';
        }
        if ($this->clientNoContextTakeover) {
            $value .= '; client_no_context_takeover';
        }
        if ($this->serverMaxWindowBits !== null) {
            $value .= '; server_max_window_bits=' . $this->serverMaxWindowBits;
        }

        return $value;
    }

    /** The compressor for what $server (or the client) sends; null: send uncompressed. */
    public function deflater(bool $server, int $level = 6): ?Deflater
    {
        $bits = ($server ? $this->serverMaxWindowBits : $this->clientMaxWindowBits) ?? 15;
        if ($bits < 9) {
            return null;
        }

        return new Deflater($bits, $server ? $this->serverNoContextTakeover : $this->clientNoContextTakeover, $level);
    }

    /** The decompressor for what the peer of $server (or of the client) sends. */
    public function inflater(bool $server): Inflater
    {
        return new Inflater($server ? $this->clientNoContextTakeover : $this->serverNoContextTakeover);
    }

    /** @param array<string, string|true> $params null when a parameter is unknown or malformed */
    private static function fromOffer(array $params): ?self
    {
        $flags = ['server_no_context_takeover' => false, 'client_no_context_takeover' => false];
        $bits = ['server_max_window_bits' => null, 'client_max_window_bits' => null];
        foreach ($params as $name => $value) {
            if (\array_key_exists($name, $flags)) {
                if ($value !== true) {
                    return null;
                }
                $flags[$name] = true;
            } elseif (\array_key_exists($name, $bits)) {
                if ($value === true) {
                    if ($name === 'server_max_window_bits') {
                        return null; // it must have a value
                    }
                    continue; // client_max_window_bits without a value: "you may limit me"
                }
                if (\preg_match('/^(?:[89]|1[0-5])$/D', $value) !== 1) {
                    return null;
                }
                $bits[$name] = (int) $value;
            } else {
                return null;
            }
        }

        return new self(
            $flags['server_no_context_takeover'],
            $flags['client_no_context_takeover'],
            $bits['server_max_window_bits'],
            $bits['client_max_window_bits'],
        );
    }
}
