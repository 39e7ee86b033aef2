<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** Column definition flags ("*_FLAG" constants). */
final class ColumnFlag
{
    public const NOT_NULL = 1;
    public const PRIMARY_KEY = 1 << 1;
    public const UNIQUE_KEY = 1 << 2;
    public const MULTIPLE_KEY = 1 << 3;
    public const BLOB = 1 << 4;
    public const UNSIGNED = 1 << 5;
    public const ZEROFILL = 1 << 6;
    public const BINARY = 1 << 7;
    public const ENUM = 1 << 8;
    public const AUTO_INCREMENT = 1 << 9;
    public const TIMESTAMP = 1 << 10;
    public const SET = 1 << 11;
    public const NO_DEFAULT_VALUE = 1 << 12;
    public const ON_UPDATE_NOW = 1 << 13;
    public const NUM = 1 << 15;

    private function __construct()
    {
    }
}
