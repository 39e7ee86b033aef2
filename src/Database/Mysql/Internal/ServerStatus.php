<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** Server status flags carried by OK and EOF packets ("SERVER_*" constants). */
final class ServerStatus
{
    public const IN_TRANS = 1;
    public const AUTOCOMMIT = 1 << 1;
    public const MORE_RESULTS_EXISTS = 1 << 3;
    public const NO_GOOD_INDEX_USED = 1 << 4;
    public const NO_INDEX_USED = 1 << 5;
    public const CURSOR_EXISTS = 1 << 6;
    public const LAST_ROW_SENT = 1 << 7;
    public const DB_DROPPED = 1 << 8;
    public const NO_BACKSLASH_ESCAPES = 1 << 9;
    public const METADATA_CHANGED = 1 << 10;
    public const QUERY_WAS_SLOW = 1 << 11;
    public const PS_OUT_PARAMS = 1 << 12;
    public const IN_TRANS_READONLY = 1 << 13;
    public const SESSION_STATE_CHANGED = 1 << 14;

    private function __construct()
    {
    }
}
