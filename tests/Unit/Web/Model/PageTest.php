<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model;

use Petrel\Web\Model\Page;
use PHPUnit\Framework\TestCase;

final class PageTest extends TestCase
{
    public function testPageArithmeticAndJson(): void
    {
        $page = new Page([['id' => 11]], 21, 3, 10);
        self::assertSame(3, $page->pages);
        self::assertFalse($page->hasMore());
        self::assertSame([['id' => 11]], \iterator_to_array($page));
        self::assertSame('{"data":[{"id":11}],"total":21,"page":3,"per_page":10,"pages":3}', \json_encode($page));
        self::assertTrue((new Page([], 20, 1, 10))->hasMore());
        self::assertSame(2, (new Page([], 20, 1, 10))->pages);
        self::assertSame(1, (new Page([], 0, 1, 10))->pages, 'an empty result is page 1 of 1');
    }
}
