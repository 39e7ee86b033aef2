<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql;

/**
 * A MySQL/MariaDB failure at run time: an error the server reported (ERR packet) or a
 * client-side failure during the exchange (codes 2000–2999, as libmysqlclient numbers them).
 *
 * getCode() is the server (or client) error number, getSqlState() the five-character
 * SQLSTATE. Not final: ProtocolException extends it, and the Database layer may later slot a
 * common base class or interface in above it.
 */
class MysqlException extends \RuntimeException
{
    /** CR_MALFORMED_PACKET: the server sent bytes the protocol does not allow. */
    public const CLIENT_MALFORMED_PACKET = 2027;
    /** CR_SSL_CONNECTION_ERROR: TLS was requested but cannot be used. */
    public const CLIENT_SSL_CONNECTION_ERROR = 2026;
    /** CR_AUTH_PLUGIN_CANNOT_LOAD: the server asked for an authentication plugin we lack. */
    public const CLIENT_AUTH_PLUGIN_UNSUPPORTED = 2059;
    /** CR_AUTH_PLUGIN_ERR: the authentication plugin failed on the client side. */
    public const CLIENT_AUTH_PLUGIN_ERROR = 2061;
    /** CR_LOAD_DATA_LOCAL_INFILE_REJECTED. */
    public const CLIENT_LOCAL_INFILE_REJECTED = 2068;

    private readonly string $sqlState;
    private readonly string $serverMessage;

    public function __construct(
        string $message,
        int $code = 0,
        string $sqlState = 'HY000',
        ?\Throwable $previous = null,
        ?string $serverMessage = null,
    ) {
        parent::__construct($message, $code, $previous);
        $this->sqlState = $sqlState;
        $this->serverMessage = $serverMessage ?? $message;
    }

    /** An error the server reported in an ERR packet. */
    public static function fromServer(int $code, string $sqlState, string $message): self
    {
        return new self(
            \sprintf('MySQL error %d (%s): %s', $code, $sqlState, $message),
            $code,
            $sqlState,
            null,
            $message,
        );
    }

    /** The five-character SQLSTATE, e.g. "42S02"; "HY000" when the server gave none. */
    public function getSqlState(): string
    {
        return $this->sqlState;
    }

    /** The server's (or client's) numeric error code; the same value as getCode(). */
    public function getErrorCode(): int
    {
        $code = $this->getCode();

        return \is_int($code) ? $code : 0;
    }

    /** The message text alone, without the code and SQLSTATE prefix. */
    public function getServerMessage(): string
    {
        return $this->serverMessage;
    }
}
