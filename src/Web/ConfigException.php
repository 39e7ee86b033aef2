<?php

declare(strict_types=1);

namespace Petrel\Web;

/** Configuration could not be loaded: a missing or invalid file, an env value of the wrong type. */
final class ConfigException extends \RuntimeException
{
}
