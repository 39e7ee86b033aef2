<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

/** Misuse of sessions: a value that cannot be stored, no SessionMiddleware before the code that needs it. */
final class SessionError extends \Error
{
}
