<?php

declare(strict_types=1);

namespace Petrel\Web\Container;

use Closure;
use Petrel\Coroutine\Context;

/**
 * The instances of one request: request-scoped services, plus values the App puts here (the
 * current Request, say) so that they can be injected. The App opens one per request:
 *
 *     $scope = new Scope();
 *     Context::set(Scope::CONTEXT_KEY, $scope);
 *     try { ...handle the request... } finally { $scope->close(); Context::delete(Scope::CONTEXT_KEY); }
 *
 * Coroutines spawned while handling the request copy its Context, so they share the scope.
 * close() runs the cleanup hooks (last registered first) and drops the instances; a closed
 * scope refuses new entries, so a coroutine that outlives its request cannot resurrect them.
 */
final class Scope
{
    public const CONTEXT_KEY = 'petrel.web.scope';

    /** @var array<string, mixed> */
    private array $instances = [];

    /** @var list<Closure(): void> */
    private array $onClose = [];

    private bool $closed = false;

    /** The scope of the request the current coroutine is handling, if any. */
    public static function current(): ?self
    {
        $scope = Context::get(self::CONTEXT_KEY);

        return $scope instanceof self ? $scope : null;
    }

    /** @phpstan-impure */
    public function has(string $id): bool
    {
        return \array_key_exists($id, $this->instances);
    }

    /** @throws ContainerException when $id is not in this scope */
    public function get(string $id): mixed
    {
        if (!\array_key_exists($id, $this->instances)) {
            throw new ContainerException("\"{$id}\" is not in this request scope");
        }

        return $this->instances[$id];
    }

    /** @throws ContainerException when the scope is closed */
    public function set(string $id, mixed $value): void
    {
        if ($this->closed) { // assertOpen(), inlined: the App sets the Request twice per request
            $this->assertOpen("\"{$id}\"");
        }
        $this->instances[$id] = $value;
    }

    /**
     * Runs $hook when the scope closes (hooks run last registered first).
     *
     * @param Closure(): void $hook
     * @throws ContainerException when the scope is closed
     */
    public function onClose(Closure $hook): void
    {
        $this->assertOpen('a close hook');
        $this->onClose[] = $hook;
    }

    /**
     * Runs every cleanup hook even if some throw, then drops the instances; rethrows the
     * first hook's exception. Closing twice does nothing.
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->onClose === []) { // most requests register no hook
            $this->instances = [];

            return;
        }
        $first = null;
        while (($hook = \array_pop($this->onClose)) !== null) {
            try {
                $hook();
            } catch (\Throwable $error) {
                $first ??= $error;
            }
        }
        $this->instances = [];
        if ($first !== null) {
            throw $first;
        }
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    private function assertOpen(string $what): void
    {
        if ($this->closed) {
            throw new ContainerException("Cannot add {$what} to a closed request scope (did a coroutine outlive its request?)");
        }
    }
}
