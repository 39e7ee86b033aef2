<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/**
 * Coroutine-local values: what a request's code stores here is invisible to the other
 * requests served by the same worker. A new coroutine starts with a copy of its parent's
 * values (objects are shared, not cloned). Outside any coroutine, the main context's
 * values are used.
 */
final class Context
{
    public static function get(string $key, mixed $default = null): mixed
    {
        $context = Scheduler::running()->context;

        return \array_key_exists($key, $context) ? $context[$key] : $default;
    }

    public static function set(string $key, mixed $value): void
    {
        Scheduler::running()->context[$key] = $value;
    }

    /**
     * Sets $key and returns the value it had ($default if none), in one call: for code that
     * puts a value in place for a while and then restores the previous one (a request
     * scope).
     */
    public static function replace(string $key, mixed $value, mixed $default = null): mixed
    {
        $coroutine = Scheduler::running();
        $previous = \array_key_exists($key, $coroutine->context) ? $coroutine->context[$key] : $default;
        $coroutine->context[$key] = $value;

        return $previous;
    }

    public static function has(string $key): bool
    {
        return \array_key_exists($key, Scheduler::running()->context);
    }

    public static function delete(string $key): void
    {
        unset(Scheduler::running()->context[$key]);
    }
}
