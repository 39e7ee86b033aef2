<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;

/**
 * The connection phase as a pure state machine: it decides what to send, the connection
 * only moves bytes (through a PacketFramer, whose sequence ids run on from the greeting).
 *
 *   $greeting = HandshakeV10::parse($framer->next());
 *   $step = $auth->start($greeting, tls: $wantTls);
 *   loop:
 *     Send        → write $framer->packet($step->payload); $step = $auth->handle(next packet)
 *     Read        → $step = $auth->handle(next packet)
 *     UpgradeTls  → write $framer->packet($step->payload); TLS handshake;
 *                   $step = $auth->tlsEstablished()
 *     Done        → command phase; negotiated flags in capabilities()
 *     Failed      → throw $step->exception()
 *
 * Plugins: mysql_native_password, caching_sha2_password (fast path; full authentication
 * in clear text over TLS or a Unix socket, otherwise RSA with a configured or requested
 * server key), mysql_clear_password (only over a secure channel). An AuthSwitchRequest may
 * move to any of them. Other plugins end in a MysqlException (2059).
 */
final class Authenticator
{
    public const NATIVE_PASSWORD = 'mysql_native_password';
    public const CACHING_SHA2_PASSWORD = 'caching_sha2_password';
    public const CLEAR_PASSWORD = 'mysql_clear_password';

    /** What we ask for; the server's capabilities filter it. */
    private const BASE_CAPABILITIES = Capability::LONG_PASSWORD | Capability::LONG_FLAG
        | Capability::PROTOCOL_41 | Capability::TRANSACTIONS | Capability::SECURE_CONNECTION
        | Capability::MULTI_RESULTS | Capability::PS_MULTI_RESULTS | Capability::PLUGIN_AUTH
        | Capability::PLUGIN_AUTH_LENENC_CLIENT_DATA | Capability::DEPRECATE_EOF;

    private const INITIAL = 0;
    private const AWAIT_TLS = 1;
    private const AWAIT_RESULT = 2;
    private const AWAIT_PUBLIC_KEY = 3;
    private const FINISHED = 4;

    private int $state = self::INITIAL;
    private int $capabilities = 0;
    private string $plugin = '';
    private string $nonce = '';
    private bool $tls = false;

    /**
     * @param bool                  $secureTransport the channel is safe without TLS (a Unix socket)
     * @param ?string               $serverPublicKey PEM RSA key of the server, to skip asking for it
     * @param bool                  $allowPublicKeyRetrieval ask the server for its RSA key when
     *                                                        needed (open to a man in the middle)
     * @param array<string, string> $attributes      connection attributes (performance_schema)
     */
    public function __construct(
        private readonly string $user,
        #[\SensitiveParameter] private readonly string $password = '',
        private readonly ?string $database = null,
        private readonly int $charset = Charset::UTF8MB4_GENERAL_CI,
        private readonly bool $multiStatements = false,
        private readonly bool $foundRows = false,
        private readonly bool $secureTransport = false,
        private readonly ?string $serverPublicKey = null,
        private readonly bool $allowPublicKeyRetrieval = true,
        private readonly array $attributes = [],
    ) {
        if ($charset < 1 || $charset > 255) {
            throw new \ValueError('The handshake charset must be a collation id from 1 to 255');
        }
    }

    /** @throws MysqlException when the server cannot do what we need (protocol 4.1, TLS) */
    public function start(HandshakeV10 $handshake, bool $tls = false): AuthStep
    {
        if ($this->state !== self::INITIAL) {
            throw new \Error('Authenticator::start() may only be called once');
        }
        if (!$handshake->supports(Capability::PROTOCOL_41 | Capability::SECURE_CONNECTION)) {
            throw new MysqlException('The server is too old: it lacks the 4.1 protocol and authentication', 2054);
        }
        $wanted = self::BASE_CAPABILITIES
            | ($this->database !== null && $this->database !== '' ? Capability::CONNECT_WITH_DB : 0)
            | ($this->multiStatements ? Capability::MULTI_STATEMENTS : 0)
            | ($this->foundRows ? Capability::FOUND_ROWS : 0)
            | ($tls ? Capability::SSL : 0)
            | ($this->attributes !== [] ? Capability::CONNECT_ATTRS : 0);
        $this->capabilities = $wanted & $handshake->capabilities;
        $this->nonce = $handshake->nonce;
        $known = [self::NATIVE_PASSWORD, self::CACHING_SHA2_PASSWORD];
        $this->plugin = \in_array($handshake->authPluginName, $known, true)
            ? $handshake->authPluginName
            : self::NATIVE_PASSWORD; // the server switches us to the account's plugin

        if ($tls) {
            if (!$handshake->supportsTls()) {
                throw new MysqlException(
                    'TLS was requested but the server does not support it',
                    MysqlException::CLIENT_SSL_CONNECTION_ERROR,
                );
            }
            $this->state = self::AWAIT_TLS;

            return AuthStep::upgradeTls(HandshakeResponse::sslRequest($this->capabilities, $this->charset));
        }
        $this->state = self::AWAIT_RESULT;

        return AuthStep::send($this->handshakeResponse());
    }

    /** After UpgradeTls: the TLS handshake succeeded; returns the step that sends the login. */
    public function tlsEstablished(): AuthStep
    {
        if ($this->state !== self::AWAIT_TLS) {
            throw new \Error('Authenticator::tlsEstablished() called without a pending TLS upgrade');
        }
        $this->tls = true;
        $this->state = self::AWAIT_RESULT;

        return AuthStep::send($this->handshakeResponse());
    }

    /**
     * Handles one packet from the server.
     *
     * @throws MysqlException   for an unsupported plugin or a full authentication we may not do
     * @throws ProtocolException for a packet that does not belong here
     */
    public function handle(string $payload): AuthStep
    {
        if ($payload === '') {
            throw new ProtocolException('Empty packet during authentication');
        }
        $header = \ord($payload[0]);
        if ($this->state === self::AWAIT_PUBLIC_KEY) {
            if ($header === Packet::ERR) {
                return $this->finish(AuthStep::failed(ErrPacket::parse($payload)));
            }
            if ($header !== Packet::AUTH_MORE_DATA) {
                throw new ProtocolException('Expected the server\'s RSA public key');
            }
            $this->state = self::AWAIT_RESULT;

            return AuthStep::send(AuthScramble::rsaEncryptPassword($this->password, $this->nonce, substr($payload, 1)));
        }
        if ($this->state !== self::AWAIT_RESULT) {
            throw new \Error('Authenticator::handle() called in the wrong state');
        }

        return match ($header) {
            Packet::OK => $this->finish(AuthStep::done(OkPacket::parse($payload, $this->capabilities))),
            Packet::ERR => $this->finish(AuthStep::failed(ErrPacket::parse($payload))),
            Packet::EOF => $this->switchPlugin($payload),
            Packet::AUTH_MORE_DATA => $this->moreData(substr($payload, 1)),
            default => throw new ProtocolException(\sprintf('Unexpected packet 0x%02X during authentication', $header)),
        };
    }

    /** The capability flags in force for this connection (what the decoders need). */
    public function capabilities(): int
    {
        return $this->capabilities;
    }

    /** The authentication plugin in use (after any switch). */
    public function pluginName(): string
    {
        return $this->plugin;
    }

    private function handshakeResponse(): string
    {
        return HandshakeResponse::build(
            $this->capabilities,
            $this->charset,
            $this->user,
            $this->authResponse(),
            $this->database ?? '',
            $this->plugin,
            $this->attributes,
        );
    }

    /** AuthSwitchRequest: 0xFE, plugin name (NUL-terminated), plugin data (the new nonce). */
    private function switchPlugin(string $payload): AuthStep
    {
        if (\strlen($payload) === 1) {
            throw new MysqlException(
                'The server asked for the pre-4.1 password hashing (mysql_old_password), which is not supported',
                MysqlException::CLIENT_AUTH_PLUGIN_UNSUPPORTED,
            );
        }
        $reader = new PayloadReader($payload, 1);
        $this->plugin = $reader->nulStringOrRest();
        $data = $reader->rest();
        $this->nonce = str_ends_with($data, "\0") ? substr($data, 0, -1) : $data;

        return AuthStep::send($this->authResponse());
    }

    /** AuthMoreData: 0x01 + plugin-specific data. */
    private function moreData(string $data): AuthStep
    {
        if ($this->plugin !== self::CACHING_SHA2_PASSWORD) {
            throw new ProtocolException(\sprintf('Unexpected AuthMoreData for plugin %s', $this->plugin));
        }
        if ($data === "\x03") { // fast authentication succeeded: an OK follows
            return AuthStep::read();
        }
        if ($data !== "\x04") {
            throw new ProtocolException('Unexpected caching_sha2_password data from the server');
        }
        // Perform full authentication: the server needs the password itself.
        if ($this->tls || $this->secureTransport) {
            return AuthStep::send($this->password . "\0");
        }
        if ($this->serverPublicKey !== null) {
            $encrypted = AuthScramble::rsaEncryptPassword($this->password, $this->nonce, $this->serverPublicKey);

            return AuthStep::send($encrypted);
        }
        if ($this->allowPublicKeyRetrieval) {
            $this->state = self::AWAIT_PUBLIC_KEY;

            return AuthStep::send("\x02");
        }
        throw new MysqlException(
            'caching_sha2_password needs the password sent in full: use TLS, give the server\'s RSA public key, '
            . 'or allow public key retrieval',
            MysqlException::CLIENT_AUTH_PLUGIN_ERROR,
        );
    }

    private function authResponse(): string
    {
        return match ($this->plugin) {
            self::NATIVE_PASSWORD => AuthScramble::nativePassword($this->password, $this->nonce),
            self::CACHING_SHA2_PASSWORD => AuthScramble::cachingSha2Password($this->password, $this->nonce),
            self::CLEAR_PASSWORD => $this->tls || $this->secureTransport
                ? $this->password . "\0"
                : throw new MysqlException(
                    'The server asked for the password in clear text (mysql_clear_password) '
                    . 'on a connection without TLS',
                    MysqlException::CLIENT_AUTH_PLUGIN_ERROR,
                ),
            default => throw new MysqlException(
                \sprintf('Authentication plugin "%s" is not supported', $this->plugin),
                MysqlException::CLIENT_AUTH_PLUGIN_UNSUPPORTED,
            ),
        };
    }

    private function finish(AuthStep $step): AuthStep
    {
        $this->state = self::FINISHED;

        return $step;
    }
}
