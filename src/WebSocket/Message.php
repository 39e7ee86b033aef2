<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/** A whole WebSocket data message: text (valid UTF-8, checked on receipt) or binary. */
final class Message implements \Stringable
{
    public function __construct(
        public readonly string $data,
        public readonly bool $binary = false,
    ) {
    }

    public function isText(): bool
    {
        return !$this->binary;
    }

    public function isBinary(): bool
    {
        return $this->binary;
    }

    public function __toString(): string
    {
        return $this->data;
    }
}
