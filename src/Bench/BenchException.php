<?php

declare(strict_types=1);

namespace Petrel\Bench;

use RuntimeException;

/** A benchmark run cannot go on (bad option, unwritable output directory, bad results.json). */
final class BenchException extends RuntimeException
{
}
