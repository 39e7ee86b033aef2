<?php

declare(strict_types=1);

namespace Petrel\Database;

/** Base of the database layer's runtime failures. */
class DatabaseException extends \RuntimeException
{
}
