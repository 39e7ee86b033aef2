<?php

declare(strict_types=1);

namespace Petrel\Database;

/** Misuse of the database API: a connection used by two coroutines at once, a bad parameter. */
final class DatabaseError extends \Error
{
}
