<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database;

use Petrel\Database\Internal\StatementCache;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/** The statement cache both SQL clients keep (MySQL statement objects, PostgreSQL names). */
#[CoversClass(StatementCache::class)]
final class StatementCacheTest extends TestCase
{
    public function testGetPutRemove(): void
    {
        /** @var StatementCache<string> $cache */
        $cache = new StatementCache(10);
        self::assertNull($cache->get('a'));
        self::assertNull($cache->put('a', 's1'));
        self::assertSame('s1', $cache->get('a'));
        self::assertSame('s1', $cache->remove('a'));
        self::assertNull($cache->get('a'));
        self::assertNull($cache->remove('a'));
        self::assertSame(0, $cache->count());
    }

    public function testEvictsTheLeastRecentlyUsed(): void
    {
        /** @var StatementCache<string> $cache */
        $cache = new StatementCache(2);
        $cache->put('a', 's1');
        $cache->put('b', 's2');
        $cache->get('a');
        self::assertSame('s2', $cache->put('c', 's3'));
        self::assertSame('s1', $cache->get('a'));
        self::assertNull($cache->get('b'));
        self::assertSame('s3', $cache->get('c'));
        self::assertSame(['s1', 's3'], $cache->clear(), 'least recently used first');
        self::assertSame(0, $cache->count());
    }
}
