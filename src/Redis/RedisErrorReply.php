<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * An error reply sent by the server (RESP `-` simple error or RESP3 `!` blob error).
 *
 * The parser returns it as a value and never throws it: the client decides whether
 * a given error becomes a {@see RedisException} (a normal command) or stays a value
 * (for example one failed command inside an EXEC or a pipeline).
 *
 * Per the RESP spec the first word of the text, when it is upper case, is the error
 * kind ("ERR", "WRONGTYPE", "MOVED", "NOSCRIPT", …) and the rest is the message.
 * When the first word is not an upper-case word the kind is '' and the message holds
 * the whole text. {@see text()} always gives back the text exactly as received.
 */
final class RedisErrorReply
{
    private const KIND_HEAD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    private const KIND_TAIL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';

    public function __construct(
        public readonly string $kind,
        public readonly string $message,
    ) {
    }

    /** Splits an error text as received on the wire ("WRONGTYPE Operation …") into kind and message. */
    public static function fromText(string $text): self
    {
        $space = strpos($text, ' ');
        $word = $space === false ? $text : substr($text, 0, $space);
        if (
            $word === ''
            || strspn($word, self::KIND_HEAD, 0, 1) !== 1
            || strspn($word, self::KIND_TAIL) !== strlen($word)
        ) {
            return new self('', $text);
        }

        return new self($word, $space === false ? '' : substr($text, $space + 1));
    }

    /** The error text as the server sent it: kind, one space, message. */
    public function text(): string
    {
        if ($this->kind === '') {
            return $this->message;
        }

        return $this->message === '' ? $this->kind : $this->kind . ' ' . $this->message;
    }

    public function __toString(): string
    {
        return $this->text();
    }
}
