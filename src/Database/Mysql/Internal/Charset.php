<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** Collation ids a client may announce in the handshake (one byte). */
final class Charset
{
    /** utf8mb4_general_ci: known to MySQL ≥ 5.5.3 and every MariaDB; our default. */
    public const UTF8MB4_GENERAL_CI = 45;
    /** utf8mb4_unicode_ci. */
    public const UTF8MB4_UNICODE_CI = 224;
    /** binary: the charset of BLOB/BINARY columns and of numbers in column definitions. */
    public const BINARY = 63;

    private function __construct()
    {
    }
}
