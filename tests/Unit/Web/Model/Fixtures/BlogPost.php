<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model\Fixtures;

use Petrel\Web\Model\Model;

final class BlogPost extends Model
{
    protected static array $casts = ['when' => 'someday'];
}
