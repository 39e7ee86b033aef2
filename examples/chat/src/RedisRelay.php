<?php

declare(strict_types=1);

namespace Chat;

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\ChannelClosedException;
use Petrel\Coroutine\TimeoutException;
use Petrel\Redis\Redis;

use function Petrel\go;
use function Petrel\sleep;

/**
 * Broadcast through Redis pub/sub: every message is PUBLISHed on one channel, and each
 * worker of each instance has one subscriber coroutine (a dedicated connection, started
 * by the worker's first member) that hands what arrives to its Hub. Our own messages come
 * back the same way, so every member sees one order: Redis's.
 *
 * The subscriber also listens on a channel of its own, where listen() publishes probes
 * until one comes back: then the subscription is live, and a member who joined after
 * that hears every message published after it joined. A lost subscription is re-made
 * after a second; messages published meanwhile are lost (pub/sub keeps nothing).
 */
final class RedisRelay implements Relay
{
    private ?Channel $ready = null;

    private readonly string $probeChannel;

    public function __construct(private readonly Redis $redis, private readonly string $channel = 'petrel:chat')
    {
        $this->probeChannel = $channel . ':probe:' . \bin2hex(\random_bytes(8));
    }

    public function publish(string $json, Hub $hub): void
    {
        $this->redis->command('PUBLISH', $this->channel, $json);
    }

    public function isShared(): bool
    {
        return true;
    }

    /**
     * Starts this worker's subscriber (once) and waits until it is subscribed.
     *
     * @throws ChatException when it is not within $timeout seconds
     */
    public function listen(Hub $hub, float $timeout = 5.0): void
    {
        if ($this->ready === null) {
            $this->ready = new Channel(1);
            go($this->subscribe(...), $hub, $this->ready);
        }
        $deadline = \microtime(true) + $timeout;
        while (!$this->ready->isClosed()) {
            $this->redis->command('PUBLISH', $this->probeChannel, 'probe');
            try {
                $this->ready->pop(0.05);
            } catch (TimeoutException | ChannelClosedException) {
            }
            if (\microtime(true) > $deadline) {
                throw new ChatException("Not subscribed to Redis channel {$this->channel} within {$timeout} s");
            }
        }
    }

    private function subscribe(Hub $hub, Channel $ready): void
    {
        $onMessage = function (string $channel, string $json) use ($hub, $ready): void {
            if ($channel === $this->probeChannel) {
                $ready->close();
            } else {
                $hub->deliver($json);
            }
        };
        for (;;) { // for the worker's life: the worker exits without waiting for it
            try {
                $this->redis->subscribe([$this->channel, $this->probeChannel], $onMessage);
            } catch (\Throwable $error) {
                \fwrite(\STDERR, "chat: the Redis subscription failed ({$error->getMessage()}); again in 1 s\n");
            }
            sleep(1.0);
        }
    }
}
