<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Petrel\Socket\Socket;
use Petrel\Tests\Unit\WebSocket\FrameHarness;

use function Petrel\Socket\connect;

/** A hand-driven WebSocket client: raw frames out, raw frames in, for protocol tests. */
final class RawClient
{
    private function __construct(public readonly Socket $socket, public readonly string $head)
    {
    }

    /** Connects and handshakes (no extensions); $firstFrames go in the same write as the request. */
    public static function connect(string $address, string $firstFrames = '', string $extensions = ''): self
    {
        $socket = connect($address);
        $key = \base64_encode(\random_bytes(16));
        $socket->write("GET / HTTP/1.1\r\nHost: {$address}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            . "Sec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n"
            . ($extensions !== '' ? "Sec-WebSocket-Extensions: {$extensions}\r\n" : '') . "\r\n" . $firstFrames);
        $head = (string) $socket->readLine("\r\n\r\n");

        return new self($socket, $head);
    }

    public function send(int $opcode, string $payload, bool $fin = true, int $rsv = 0): void
    {
        $this->socket->write(FrameHarness::clientFrame($opcode, $payload, $fin, $rsv));
    }

    /**
     * @return array{int, string}|null the next server frame: [first byte, payload]; null at EOF
     * @phpstan-impure
     */
    public function readFrame(): ?array
    {
        $head = $this->socket->read(2);
        if ($head === null) {
            return null;
        }
        if (\strlen($head) < 2) {
            $head .= $this->socket->readExactly(1);
        }
        $length = \ord($head[1]) & 0x7F;
        if ($length === 126) {
            $length = \unpack('n', $this->socket->readExactly(2))[1] ?? 0;
        } elseif ($length === 127) {
            $length = \unpack('J', $this->socket->readExactly(8))[1] ?? 0;
        }

        return [\ord($head[0]), $length > 0 ? $this->socket->readExactly($length) : ''];
    }
}
