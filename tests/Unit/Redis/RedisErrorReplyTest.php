<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\RedisErrorReply;
use Petrel\Redis\RedisException;

#[CoversClass(RedisErrorReply::class)]
#[CoversClass(RedisException::class)]
final class RedisErrorReplyTest extends TestCase
{
    /** @return iterable<string, array{string, string, string}> text, kind, message */
    public static function texts(): iterable
    {
        yield 'ERR' => ['ERR unknown command', 'ERR', 'unknown command'];
        yield 'WRONGTYPE' => ['WRONGTYPE Operation against a key holding the wrong kind of value', 'WRONGTYPE', 'Operation against a key holding the wrong kind of value'];
        yield 'MOVED' => ['MOVED 3999 127.0.0.1:6381', 'MOVED', '3999 127.0.0.1:6381'];
        yield 'kind with digits and underscore' => ['ERR_2 x', 'ERR_2', 'x'];
        yield 'kind only' => ['NOSCRIPT', 'NOSCRIPT', ''];
        yield 'extra spaces kept in the message' => ['ERR  two spaces ', 'ERR', ' two spaces '];
        yield 'lower-case first word' => ['Error: something', '', 'Error: something'];
        yield 'first word starting with a digit' => ['1ERR x', '', '1ERR x'];
        yield 'leading space' => [' ERR x', '', ' ERR x'];
        yield 'empty' => ['', '', ''];
    }

    #[DataProvider('texts')]
    public function testSplitsKindAndMessageAndKeepsTheText(string $text, string $kind, string $message): void
    {
        $reply = RedisErrorReply::fromText($text);

        self::assertSame($kind, $reply->kind);
        self::assertSame($message, $reply->message);
        self::assertSame($text, $reply->text());
        self::assertSame($text, (string) $reply);
    }

    public function testExceptionFromReply(): void
    {
        $reply = RedisErrorReply::fromText('WRONGTYPE Operation against a key');
        $previous = new \RuntimeException('cause');

        $exception = RedisException::fromReply($reply, $previous);

        self::assertSame('WRONGTYPE Operation against a key', $exception->getMessage());
        self::assertSame('WRONGTYPE', $exception->kind());
        self::assertSame('Operation against a key', $exception->serverMessage());
        self::assertSame($reply, $exception->reply);
        self::assertSame($previous, $exception->getPrevious());
    }
}
