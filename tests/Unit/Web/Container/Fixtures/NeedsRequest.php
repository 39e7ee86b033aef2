<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

use Petrel\Http\Request;

final class NeedsRequest
{
    public function __construct(public readonly Request $request)
    {
    }
}
