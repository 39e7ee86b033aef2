<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Socket;

use Petrel\Database\Mysql\Internal\Link;
use Petrel\Redis\Internal\RespEncoder;
use Petrel\Redis\Internal\RespStream;
use Petrel\Socket\ClosedException;
use Petrel\Socket\StreamSocket;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\Socket\connect;
use function Petrel\Socket\listen;

/**
 * The bytes a client writes hold passwords at times (Redis AUTH and HELLO, MySQL's full
 * authentication over TLS): an exception thrown while writing them must not carry them in
 * its trace, which loggers and error trackers serialise with the arguments.
 */
final class SensitiveBytesTest extends AsyncTestCase
{
    public function testAFailedWriteKeepsItsBytesOutOfTheTrace(): void
    {
        $ignoreArgs = \ini_set('zend.exception_ignore_args', '0');
        try {
            $this->async(static function (): void {
                $listener = listen('127.0.0.1:0');
                $socket = connect($listener->getAddress());
                $socket->close();
                $listener->close();
                try {
                    $socket->write("AUTH default s3cr3t-password\r\n");
                    self::fail('a write on a closed socket must fail');
                } catch (ClosedException $e) {
                    $trace = \print_r($e->getTrace(), true);
                    self::assertStringNotContainsString('s3cr3t', $trace);
                    self::assertStringContainsString('SensitiveParameterValue', $trace, 'the trace has the arguments');
                }
            });
        } finally {
            \ini_set('zend.exception_ignore_args', (string) $ignoreArgs);
        }
    }

    /** Every method the credentials pass through on their way to the socket. */
    public function testTheWritePathsOfCredentialsAreMarkedSensitive(): void
    {
        foreach ([
            [StreamSocket::class, 'write', 0],
            [RespEncoder::class, 'encode', 0],
            [RespEncoder::class, 'encodeMany', 0],
            [RespStream::class, 'requestMany', 0],
            [RespStream::class, 'send', 0],
            [Link::class, 'send', 0],
        ] as [$class, $method, $position]) {
            $parameter = (new \ReflectionMethod($class, $method))->getParameters()[$position];
            self::assertNotEmpty($parameter->getAttributes(\SensitiveParameter::class), "{$class}::{$method}() \${$parameter->getName()}");
        }
    }
}
