<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\ConnectionException;
use Petrel\Database\Mysql\Internal\Link;
use PHPUnit\Framework\Attributes\CoversClass;

/**
 * A parameter far above the server's max_allowed_packet (a 20 MB upload into a BLOB on a
 * 16 MiB server): the server hangs up while the command is still being written, so the
 * write fails with "Connection reset by peer" before the server's own error (1153) can be
 * read. The exception must still say what happened and what to do.
 */
#[CoversClass(Link::class)]
final class MaxAllowedPacketTest extends MysqlTestCase
{
    public function testACommandFarAboveMaxAllowedPacketSaysSoEvenWhenTheWriteFails(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $limit = (int) $db->query('SELECT @@max_allowed_packet AS n')[0]['n'];
            if ($limit > 64 << 20) {
                self::markTestSkipped("max_allowed_packet is {$limit} bytes here");
            }
            try {
                $db->query('SELECT LENGTH(?) AS n', [\str_repeat('z', 2 * $limit)]);
                self::fail('the server refuses a packet above its limit');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('max_allowed_packet', $e->getMessage());
            }
            self::assertFalse($db->isUsable());
            self::assertSame([['n' => 1]], $this->connect()->query('SELECT 1 AS n'), 'the server is fine');
        }, 30.0);
    }
}
