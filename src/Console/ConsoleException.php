<?php

declare(strict_types=1);

namespace Petrel\Console;

/** A CLI failure to report as one line: bad arguments, missing APP, port in use, not running. */
final class ConsoleException extends \RuntimeException
{
}
