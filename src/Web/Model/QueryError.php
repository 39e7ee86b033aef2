<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

/**
 * Misuse of the query builder: an operator outside the whitelist, an empty identifier, a
 * value of the wrong shape, a terminal call on a query with no table or no database.
 */
final class QueryError extends \Error
{
}
