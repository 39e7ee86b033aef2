<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\Internal\ConnInfo;
use Petrel\Database\Pgsql\PgsqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

/**
 * pgsql://app@[::1]:5432/app, an IPv6 address as URLs write it, reaches libpq as the
 * address (which it connects to), not as a host name "[::1]" to resolve.
 */
#[CoversClass(ConnInfo::class)]
final class ConnectIpv6Test extends PgsqlTestCase
{
    public function testAnIpv6AddressInBracketsIsConnectedToNotResolved(): void
    {
        $this->async(function (): void {
            // Port 1 on loopback: nothing listens, so libpq must get as far as connecting.
            $config = DatabaseConfig::fromUrl('pgsql://app:secret@[::1]:1/app?connect_timeout=2');
            try {
                PgsqlConnection::connect($config);
                self::fail('nothing listens on port 1');
            } catch (ConnectionException $e) {
                self::assertStringNotContainsString('translate host name', $e->getMessage());
                self::assertStringContainsString('"::1"', $e->getMessage());
            }
        });
    }
}
