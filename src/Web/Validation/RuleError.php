<?php

declare(strict_types=1);

namespace Petrel\Web\Validation;

/** A rule is malformed: unknown name, missing or bad parameter, invalid regex. A bug in the caller. */
final class RuleError extends \LogicException
{
}
