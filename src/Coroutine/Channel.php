<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/**
 * A FIFO channel between coroutines, as in Go. Capacity 0 is a rendezvous: push() waits
 * for a pop(). Channel::unbounded() never makes push() wait.
 *
 * close() wakes every waiter: blocked pushers and poppers get a ChannelClosedException;
 * values already buffered can still be popped, then pop() throws too.
 */
final class Channel
{
    /** @var array<int, mixed> */
    private array $buffer = [];
    private int $head = 0;
    private int $tail = 0;
    /** @var array<int, Suspension> */
    private array $receivers = [];
    /** @var array<int, array{Suspension, mixed}> */
    private array $senders = [];
    private bool $closed = false;

    public function __construct(public readonly int $capacity = 0)
    {
        if ($capacity < 0) {
            throw new CoroutineError("Channel capacity must be >= 0, got {$capacity}");
        }
    }

    public static function unbounded(): self
    {
        return new self(\PHP_INT_MAX);
    }

    /**
     * @throws ChannelClosedException if the channel is (or gets) closed
     * @throws TimeoutException if no room frees up within $timeout seconds
     */
    public function push(mixed $value, ?float $timeout = null): void
    {
        if ($this->closed) {
            throw new ChannelClosedException('Cannot push to a closed channel');
        }
        foreach ($this->receivers as $key => $receiver) {
            unset($this->receivers[$key]);
            if ($receiver->resume($value)) {
                return;
            }
        }
        if ($this->tail - $this->head < $this->capacity) {
            $this->buffer[$this->tail++] = $value;

            return;
        }
        $suspension = Scheduler::get()->suspension();
        $key = \spl_object_id($suspension);
        $this->senders[$key] = [$suspension, $value];
        try {
            $suspension->suspend($timeout);
        } finally {
            unset($this->senders[$key]);
        }
    }

    /**
     * @throws ChannelClosedException if the channel is closed and empty
     * @throws TimeoutException if nothing arrives within $timeout seconds
     */
    public function pop(?float $timeout = null): mixed
    {
        if ($this->head < $this->tail) {
            $value = $this->buffer[$this->head];
            unset($this->buffer[$this->head++]);
            $this->admitSender();

            return $value;
        }
        foreach ($this->senders as $key => [$sender, $value]) {
            unset($this->senders[$key]);
            if ($sender->resume()) {
                return $value;
            }
        }
        if ($this->closed) {
            throw new ChannelClosedException('Cannot pop from a closed and empty channel');
        }
        $suspension = Scheduler::get()->suspension();
        $key = \spl_object_id($suspension);
        $this->receivers[$key] = $suspension;
        try {
            return $suspension->suspend($timeout);
        } finally {
            unset($this->receivers[$key]);
        }
    }

    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $receivers = $this->receivers;
        $senders = $this->senders;
        $this->receivers = $this->senders = [];
        foreach ($receivers as $receiver) {
            $receiver->throw(new ChannelClosedException('The channel was closed while waiting to pop'));
        }
        foreach ($senders as [$sender]) {
            $sender->throw(new ChannelClosedException('The channel was closed while waiting to push'));
        }
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** Values buffered and not yet popped. */
    public function count(): int
    {
        return $this->tail - $this->head;
    }

    public function isEmpty(): bool
    {
        return $this->head === $this->tail;
    }

    /** Moves the first blocked sender's value into the buffer slot a pop just freed. */
    private function admitSender(): void
    {
        foreach ($this->senders as $key => [$sender, $value]) {
            unset($this->senders[$key]);
            if ($sender->resume()) {
                $this->buffer[$this->tail++] = $value;

                return;
            }
        }
    }
}
