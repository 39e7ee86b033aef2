<?php

declare(strict_types=1);

namespace Petrel\Web\View;

/** Misuse of a View: a missing template directory, a function or global added too late. */
final class ViewError extends \Error
{
}
