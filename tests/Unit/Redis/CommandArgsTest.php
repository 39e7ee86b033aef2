<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use Petrel\Redis\Internal\CommandArgs;
use Petrel\Redis\RedisError;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(CommandArgs::class)]
final class CommandArgsTest extends TestCase
{
    public function testSetOptions(): void
    {
        self::assertSame(['SET', 'k', 'v'], CommandArgs::set('k', 'v', null, false, false));
        self::assertSame(['SET', 'k', 1, 'EX', 10], CommandArgs::set('k', 1, 10, false, false));
        self::assertSame(['SET', 'k', 'v', 'PX', 1500], CommandArgs::set('k', 'v', 1.5, false, false));
        self::assertSame(['SET', 'k', 'v', 'PX', 1], CommandArgs::set('k', 'v', 0.0001, false, false));
        self::assertSame(['SET', 'k', 'v', 'EX', 5, 'NX'], CommandArgs::set('k', 'v', 5, true, false));
        self::assertSame(['SET', 'k', 'v', 'XX'], CommandArgs::set('k', 'v', null, false, true));
    }

    public function testSetRefusesContradictions(): void
    {
        foreach ([[0, false, false], [-1.5, false, false], [\NAN, false, false], [null, true, true]] as [$ttl, $nx, $xx]) {
            try {
                CommandArgs::set('k', 'v', $ttl, $nx, $xx);
                self::fail('should be refused');
            } catch (\ValueError $e) {
                self::assertStringStartsWith('SET: ', $e->getMessage());
            }
        }
    }

    public function testPairsAndRanges(): void
    {
        self::assertSame(['HSET', 'h', 'a', 1, '7', 'x'], CommandArgs::withPairs('HSET', 'h', ['a' => 1, 7 => 'x']));
        self::assertSame(['MSET', 'a', 'b'], CommandArgs::withPairs('MSET', null, ['a' => 'b']));
        self::assertSame(['ZADD', 'z', 1.5, 'm', 2, '3'], CommandArgs::zadd('z', ['m' => 1.5, 3 => 2]));
        self::assertSame(['ZRANGE', 'z', 0, -1, 'WITHSCORES'], CommandArgs::zrange('z', 0, -1, true));
        self::assertSame(['SCAN', '0', 'MATCH', 'a*', 'COUNT', 10, 'TYPE', 'hash'], CommandArgs::scan('0', 'a*', 10, 'hash'));
    }

    public function testGuardRefusesModeChangingCommandsOnly(): void
    {
        CommandArgs::guard('GET');
        CommandArgs::guard('subscriber');
        CommandArgs::guard('CLIENT', ['ID']);
        CommandArgs::guard('client', ['kill', 'ID', 7]);
        CommandArgs::guard('CLIENT');
        $this->expectException(RedisError::class);
        $this->expectExceptionMessage('Redis PSUBSCRIBE cannot be sent through command()');
        CommandArgs::guard('psubscribe');
    }

    /**
     * Commands that change what a pooled connection is for the next borrower: its database,
     * its watched keys, its user, whether the server answers at all.
     */
    public function testGuardRefusesTheConnectionStateAPoolHandsOn(): void
    {
        foreach ([['select', [5], 'SELECT', 'withDatabase()'], ['WATCH', ['k'], 'WATCH', 'watch()'], ['unwatch', [], 'UNWATCH', 'unwatch()'],
            ['AUTH', ['user', 'pw'], 'AUTH', 'RedisConfig'], ['QUIT', [], 'QUIT', 'close()'],
            ['client', ['reply', 'off'], 'CLIENT REPLY', 'expects its reply'], ['CLIENT', ['SKIP' => 'REPLY', 'x' => 'SKIP'], 'CLIENT REPLY', 'expects its reply']] as [$name, $args, $shown, $instead]) {
            try {
                CommandArgs::guard($name, $args);
                self::fail("{$name} should be refused");
            } catch (RedisError $e) {
                self::assertStringStartsWith("Redis {$shown} cannot be sent through command()", $e->getMessage());
                self::assertStringContainsString($instead, $e->getMessage());
            }
        }
    }
}
