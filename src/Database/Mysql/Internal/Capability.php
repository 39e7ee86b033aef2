<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * Capability flags exchanged in the handshake (MySQL "CLIENT_*" constants).
 *
 * Bit 0 is CLIENT_LONG_PASSWORD in MySQL and CLIENT_MYSQL in MariaDB: a MariaDB server leaves
 * it unset to say that its handshake carries 4 more bytes of MariaDB-only capabilities (see
 * the MARIADB_* constants, numbered within those 4 bytes).
 */
final class Capability
{
    public const LONG_PASSWORD = 1;
    public const FOUND_ROWS = 1 << 1;
    public const LONG_FLAG = 1 << 2;
    public const CONNECT_WITH_DB = 1 << 3;
    public const NO_SCHEMA = 1 << 4;
    public const COMPRESS = 1 << 5;
    public const ODBC = 1 << 6;
    public const LOCAL_FILES = 1 << 7;
    public const IGNORE_SPACE = 1 << 8;
    public const PROTOCOL_41 = 1 << 9;
    public const INTERACTIVE = 1 << 10;
    public const SSL = 1 << 11;
    public const IGNORE_SIGPIPE = 1 << 12;
    public const TRANSACTIONS = 1 << 13;
    public const RESERVED = 1 << 14;
    public const SECURE_CONNECTION = 1 << 15;
    public const MULTI_STATEMENTS = 1 << 16;
    public const MULTI_RESULTS = 1 << 17;
    public const PS_MULTI_RESULTS = 1 << 18;
    public const PLUGIN_AUTH = 1 << 19;
    public const CONNECT_ATTRS = 1 << 20;
    public const PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21;
    public const CAN_HANDLE_EXPIRED_PASSWORDS = 1 << 22;
    public const SESSION_TRACK = 1 << 23;
    public const DEPRECATE_EOF = 1 << 24;
    public const OPTIONAL_RESULTSET_METADATA = 1 << 25;
    public const ZSTD_COMPRESSION = 1 << 26;
    public const QUERY_ATTRIBUTES = 1 << 27;
    public const MULTI_FACTOR_AUTHENTICATION = 1 << 28;
    public const SSL_VERIFY_SERVER_CERT = 1 << 30;
    public const REMEMBER_OPTIONS = 1 << 31;

    /** MariaDB name of bit 0: set by MySQL servers and clients, unset by MariaDB ones. */
    public const MYSQL = self::LONG_PASSWORD;

    /** MariaDB extended capabilities (the 4 extra bytes). */
    public const MARIADB_PROGRESS = 1;
    public const MARIADB_COM_MULTI = 1 << 1;
    public const MARIADB_STMT_BULK_OPERATIONS = 1 << 2;
    public const MARIADB_EXTENDED_METADATA = 1 << 3;
    public const MARIADB_CACHE_METADATA = 1 << 4;
    public const MARIADB_BULK_UNIT_RESULTS = 1 << 5;

    private function __construct()
    {
    }
}
