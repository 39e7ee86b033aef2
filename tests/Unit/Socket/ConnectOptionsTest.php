<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Socket;

use Petrel\Socket\ConnectOptions;
use Petrel\Socket\SocketError;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ConnectOptionsTest extends TestCase
{
    /** @return iterable<string, array{float}> */
    public static function invalidTimeouts(): iterable
    {
        yield 'negative' => [-1.0];
        yield 'NaN' => [\NAN];
    }

    /**
     * connect() registered its writable watcher, then the loop refused the timer for such a
     * timeout: the watcher and the stream leaked, and the loop spun on the connected stream.
     */
    #[DataProvider('invalidTimeouts')]
    public function testAnInvalidConnectTimeoutIsRefusedByName(float $seconds): void
    {
        foreach ([static fn () => new ConnectOptions($seconds), static fn () => (new ConnectOptions())->withConnectTimeout($seconds)] as $make) {
            try {
                $make();
                self::fail("connectTimeout {$seconds} was taken");
            } catch (SocketError $error) {
                self::assertStringStartsWith('Invalid connectTimeout: expected a number of seconds >= 0', $error->getMessage());
            }
        }
    }

    public function testZeroAndInfiniteTimeoutsAreTaken(): void
    {
        self::assertSame(0.0, (new ConnectOptions(0.0))->connectTimeout);
        self::assertSame(\INF, (new ConnectOptions())->withConnectTimeout(\INF)->connectTimeout);
    }
}
