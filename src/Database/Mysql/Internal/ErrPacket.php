<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\MysqlException;

/** An ERR packet: 0xFF, error code (2), optional "#" + SQLSTATE (5), message. */
final class ErrPacket
{
    public function __construct(
        public readonly int $code,
        public readonly string $sqlState,
        public readonly string $message,
    ) {
    }

    public static function parse(string $payload): self
    {
        $reader = new PayloadReader($payload, 1);
        $code = $reader->int2();
        $sqlState = 'HY000';
        // Before the handshake is done (e.g. "Too many connections") there is no SQLSTATE.
        if ($reader->peek() === 0x23) {
            $reader->skip(1);
            $sqlState = $reader->bytes(5);
        }

        return new self($code, $sqlState, $reader->rest());
    }

    public function toException(): MysqlException
    {
        return MysqlException::fromServer($this->code, $this->sqlState, $this->message);
    }
}
