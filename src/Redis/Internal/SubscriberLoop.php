<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Closure;
use Petrel\Redis\PushMessage;
use Petrel\Redis\RedisErrorReply;
use Petrel\Redis\RedisException;
use Throwable;

/**
 * One SUBSCRIBE or PSUBSCRIBE session: sends it, hands each message to the callback, and
 * leaves subscriber mode cleanly — sends (P)UNSUBSCRIBE and reads until the server
 * confirms that no subscription is left — when the callback returns false, calls stop(),
 * throws, or the server refuses the subscription. Messages arriving while leaving are
 * dropped. Works with RESP2 (messages are arrays) and RESP3 (push messages).
 *
 * @internal
 */
final class SubscriberLoop
{
    private bool $stopping = false;
    private bool $unsubscribeSent = false;
    private ?Throwable $failure = null;

    /**
     * @param Closure(string, string, string): mixed $onMessage (channel, message, pattern)
     *                                                        or (channel, message)
     */
    public function __construct(
        private readonly RespStream $stream,
        private readonly bool $patterns,
        private readonly Closure $onMessage,
    ) {
    }

    /**
     * Asks the loop to leave subscriber mode. From the subscribing coroutine (the callback),
     * the loop sends the unsubscribe once the callback returns; from another coroutine,
     * $sendNow sends it at once, which wakes the loop.
     */
    public function stop(bool $sendNow): void
    {
        $this->stopping = true;
        if ($sendNow && !$this->unsubscribeSent && $this->stream->isOpen()) {
            $this->unsubscribeSent = true;
            $this->stream->send(RespEncoder::encode([$this->patterns ? 'PUNSUBSCRIBE' : 'UNSUBSCRIBE']));
        }
    }

    /**
     * @param list<string> $names channels or patterns
     * @throws RedisException when the server refuses the subscription
     * @throws Throwable      what the callback threw, once subscriber mode is left
     */
    public function run(array $names): void
    {
        $this->stream->send(RespEncoder::encode([$this->patterns ? 'PSUBSCRIBE' : 'SUBSCRIBE', ...$names]));
        $done = $this->patterns ? 'punsubscribe' : 'unsubscribe';
        while (true) {
            if ($this->stopping && !$this->unsubscribeSent) {
                $this->unsubscribeSent = true;
                $this->send([$this->patterns ? 'PUNSUBSCRIBE' : 'UNSUBSCRIBE']);
            }
            try {
                $reply = $this->stream->readReply();
            } catch (Throwable $e) {
                throw $this->failure ?? $e;
            }
            if ($reply instanceof RedisErrorReply) {
                $this->failure ??= RedisException::fromReply($reply);
                $this->stopping = true;
                continue;
            }
            $fields = $reply instanceof PushMessage ? $reply->data : $reply;
            if (!\is_array($fields) || !isset($fields[0])) {
                continue;
            }
            $kind = $fields[0];
            if ($kind === $done && ($fields[2] ?? null) === 0) {
                break;
            }
            if ($this->stopping) {
                continue;
            }
            if ($kind === 'message' && !$this->patterns && isset($fields[1], $fields[2])) {
                $this->dispatch([$fields[1], $fields[2]]);
            } elseif ($kind === 'pmessage' && $this->patterns && isset($fields[1], $fields[2], $fields[3])) {
                $this->dispatch([$fields[2], $fields[3], $fields[1]]);
            }
        }
        if ($this->failure !== null) {
            throw $this->failure;
        }
    }

    /** @param list<mixed> $args */
    private function dispatch(array $args): void
    {
        try {
            if (($this->onMessage)(...$args) === false) {
                $this->stopping = true;
            }
        } catch (Throwable $e) {
            $this->failure = $e;
            $this->stopping = true;
        }
    }

    /** @param list<string> $command */
    private function send(array $command): void
    {
        try {
            $this->stream->send(RespEncoder::encode($command));
        } catch (Throwable $e) {
            throw $this->failure ?? $e;
        }
    }
}
