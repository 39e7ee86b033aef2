<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Closure;

/**
 * One listen() session on a connection: LISTEN to the channels, hand each notification to
 * the callback as it arrives (the coroutine waits on the socket in between, the worker
 * does not), and UNLISTEN * at the end — when the callback returns false or throws, stop()
 * is called (from another coroutine it wakes the wait), or a deadline expires. Channel
 * names are quoted identifiers: taken exactly as given, as pg_notify(channel, payload)
 * takes them.
 *
 * @internal
 */
final class Listener
{
    /**
     * pg_get_notify(), called through a closure: opcache's optimizer in PHP 8.2.36 takes the
     * function, called with a typed connection, to always return an array, and compiles the
     * is_array() check below away (seen in its opcode dump, opcache.opt_debug_level): in a
     * worker (opcache on) the loop then never waited, and called back with empty
     * notifications without end. A closure's result has no type it could assume.
     */
    private static ?Closure $nextNotification = null;
    private bool $stopping = false;

    /** @param Closure(string, string, int): mixed $onNotify (channel, payload, pid of the notifying backend) */
    public function __construct(private readonly Exchange $exchange, private readonly Closure $onNotify)
    {
    }

    public function stop(): void
    {
        $this->stopping = true;
        $this->exchange->link->wake();
    }

    /** @param non-empty-list<string> $channels */
    public function run(array $channels): void
    {
        $sql = \implode('; ', \array_map(static fn (string $channel): string => 'LISTEN ' . self::identifier($channel), $channels));
        $this->exchange->query($sql, $sql);
        try {
            $this->loop();
        } finally {
            if ($this->exchange->link->isOpen()) {
                $this->exchange->dispatch('UNLISTEN *'); // read before the next command; no waiting here
            }
        }
    }

    private function loop(): void
    {
        $link = $this->exchange->link;
        while (!$this->stopping) {
            $handle = $link->handle();
            $notification = (self::$nextNotification ??= \pg_get_notify(...))($handle, \PGSQL_ASSOC);
            if (\is_array($notification)) {
                $pid = (int) ($notification['pid'] ?? $notification['be_pid'] ?? 0);
                if (($this->onNotify)((string) $notification['message'], (string) ($notification['payload'] ?? ''), $pid) === false) {
                    $this->stopping = true;
                }
                continue;
            }
            $link->socket()->wait(false);
            if ($this->stopRequested() || !$link->isOpen()) {
                return;
            }
            if (!\pg_consume_input($handle) || \pg_connection_status($handle) !== \PGSQL_CONNECTION_OK) {
                throw $link->lost(\pg_last_error($handle));
            }
            \pg_last_notice($handle, \PGSQL_NOTICE_CLEAR);
        }
    }

    /** Set by stop() or the callback while the loop waited (a method: the loop's reads of the property are not stale). */
    private function stopRequested(): bool
    {
        return $this->stopping;
    }

    private static function identifier(string $name): string
    {
        if ($name === '' || \str_contains($name, "\0")) {
            throw new \InvalidArgumentException('A channel name must be a non-empty string without NUL bytes');
        }

        return '"' . \str_replace('"', '""', $name) . '"';
    }
}
