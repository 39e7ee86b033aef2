<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Pgsql;

use Petrel\Database\Pgsql\Internal\StatementCache;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(StatementCache::class)]
final class StatementCacheTest extends TestCase
{
    public function testPreparesOnTheSecondSighting(): void
    {
        $cache = new StatementCache(10);
        self::assertNull($cache->lookup('a'));
        self::assertFalse($cache->wantsPrepared('a'));
        self::assertTrue($cache->wantsPrepared('a'));
        self::assertNull($cache->add('a', 's1'));
        self::assertSame('s1', $cache->lookup('a'));
        $cache->remove('a');
        self::assertNull($cache->lookup('a'));
        self::assertFalse($cache->wantsPrepared('a'), 'removed: counted afresh');
    }

    public function testEvictsTheLeastRecentlyUsed(): void
    {
        $cache = new StatementCache(2);
        $cache->add('a', 's1');
        $cache->add('b', 's2');
        $cache->lookup('a');
        self::assertSame('s2', $cache->add('c', 's3'));
        self::assertSame('s1', $cache->lookup('a'));
        self::assertNull($cache->lookup('b'));
        self::assertSame('s3', $cache->lookup('c'));
    }
}
