<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/**
 * Where one connection is in the close handshake, shared by its sending side (WebSocket)
 * and its reading side (Receiver); both run in one thread, so plain fields suffice.
 * The first recorded close (code, reason, who started it) is the one that stays.
 */
final class CloseState
{
    /** A close frame went out: nothing more may be sent. */
    public bool $closeSent = false;
    /** The peer's close frame came: nothing more will be read. */
    public bool $closeReceived = false;
    /** The reader ended and the socket is closed. */
    public bool $finished = false;
    public ?int $code = null;
    public string $reason = '';
    public bool $byPeer = false;

    /** Whether no more messages can be sent. */
    public function isClosed(): bool
    {
        return $this->closeSent || $this->finished;
    }

    /** Records why the connection closed, unless a reason was recorded already. */
    public function record(int $code, string $reason, bool $byPeer): void
    {
        if ($this->code === null) {
            $this->code = $code;
            $this->reason = $reason;
            $this->byPeer = $byPeer;
        }
    }

    /** A close frame's payload for $code, the reason cut to 123 bytes on a character boundary. */
    public static function payload(int $code, string $reason): string
    {
        if (\strlen($reason) > 123) {
            $end = 123;
            while ($end > 0 && (\ord($reason[$end]) & 0xC0) === 0x80) {
                $end--; // do not cut a character in two
            }
            $reason = \substr($reason, 0, $end);
        }

        return FrameEncoder::closePayload($code, $reason);
    }
}
