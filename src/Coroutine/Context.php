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

    public static function has(string $key): bool
    {
        return \array_key_exists($key, Scheduler::running()->context);
    }

    public static function delete(string $key): void
    {
        unset(Scheduler::running()->context[$key]);
    }
}
