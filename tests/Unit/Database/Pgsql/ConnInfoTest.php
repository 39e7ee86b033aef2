<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Pgsql;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\Internal\ConnInfo;
use PHPUnit\Framework\TestCase;
use PHPUnit\Framework\Attributes\CoversClass;

/**
 * An IPv6 address in a URL comes in brackets (pgsql://app@[::1]:5432/app), which libpq's
 * host keyword does not take: it would look "[::1]" up as a host name and fail with
 * "could not translate host name".
 */
#[CoversClass(ConnInfo::class)]
final class ConnInfoTest extends TestCase
{
    public function testAnIpv6HostLosesTheBracketsOfTheUrl(): void
    {
        $config = DatabaseConfig::fromUrl('pgsql://app:secret@[::1]:6543/app');
        self::assertSame(['::1', 6543], ConnInfo::address($config));
        self::assertStringStartsWith("host='::1' port='6543'", ConnInfo::build($config));
        self::assertSame(['fe80::1%eth0', 5432], ConnInfo::address(new DatabaseConfig('pgsql', host: '[fe80::1%eth0]')));
        self::assertSame(['::1', 5432], ConnInfo::address(new DatabaseConfig('pgsql', host: '::1')), 'a bare address stays as it is');
        self::assertSame(['db.example', 5432], ConnInfo::address(new DatabaseConfig('pgsql', host: 'db.example')));
    }
}
