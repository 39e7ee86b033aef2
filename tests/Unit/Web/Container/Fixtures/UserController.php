<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class UserController
{
    public function __construct(public readonly UserRepository $users, public readonly ?Clock $clock = null)
    {
    }
}
