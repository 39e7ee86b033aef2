<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\QueryException;

/**
 * The server's refusal to run a prepared statement whose result type changed since it was
 * prepared (ALTER TABLE under a SELECT *): SQLSTATE 0A000 raised by the plan cache's
 * RevalidateCachedQuery. Told apart from other 0A000 errors (feature_not_supported, which a
 * function may raise after doing work) so that only this one is run again afresh.
 *
 * @internal
 */
final class StalePlan extends QueryException
{
}
