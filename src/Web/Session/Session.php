<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Coroutine\Context;
use Petrel\Coroutine\Mutex;
use Petrel\Http\Request;
use Petrel\Web\Session\Internal\JsonValue;
use Petrel\Web\Session\Internal\SessionId;

/**
 * One request's view of a user's session. {@see SessionMiddleware} makes one per request
 * and saves it afterwards; code finds it with Session::from($request).
 *
 * Lazy: nothing is read from the store until the first get/set/…/id() call, so requests
 * that never touch the session never reach the store. A session id the store does not know
 * (expired, forged, from another server) is never adopted: the session starts empty under a
 * fresh id, so an attacker cannot fix a victim's session id in advance.
 *
 * Values must survive JSON (what the stores keep): null, bool, int, float, UTF-8 strings and
 * arrays of these. Anything else (objects, binary strings, INF) is refused at set() with a
 * SessionError, in development with MemoryStore as in production with RedisStore.
 *
 * Flash values: flash() stores a value for the next request that loads the session; there
 * getFlash() returns it, and it is gone after that request. Requests that never touch the
 * session (assets, health checks) do not consume flash values.
 *
 * Concurrent requests of the same user (two tabs, parallel fetch() calls) do not undo each
 * other's work: a save reads the stored copy again and applies only what this request
 * changed to it — the keys it set or removed, the flash values it read (gone) or flashed —
 * so a key another request wrote meanwhile stays. Two requests that set the same key: the
 * last to save wins. clear() replaces the whole session, and a session another request
 * destroyed meanwhile (a logout) is not brought back: only this request's own keys are
 * written. No lock is held while a request runs, as with most session stores; the read and
 * the write of a save are one step with an {@see AtomicSessionStore} (all of Petrel's
 * stores), two with a plain SessionStore, where saves at the same moment can still lose
 * one side's keys. Coroutines spawned by one request share its Session object; the first
 * access loads it once for all of them.
 */
final class Session
{
    public const DEFAULT_TTL = 7200;

    private ?string $id = null;
    private bool $started = false;
    private bool $dirty = false;
    /** Whether the store holds this session under $this->id (as of the last load or save). */
    private bool $stored = false;
    /** Id to destroy in the store when saving, after regenerateId(). */
    private ?string $staleId = null;
    private int $savedAt = 0;
    /** @var array<string, mixed> */
    private array $data = [];
    /** @var array<string, mixed> flashed by the previous request: readable now */
    private array $flashIn = [];
    /** @var array<string, mixed> flashed by this request: for the next one */
    private array $flashOut = [];
    /** Whether the store still holds $flashIn's values (read at load): the next save removes them. */
    private bool $flashInStored = false;
    /** @var array<string, true> keys this request set or removed since the last load or save */
    private array $changed = [];
    /** Whether clear() ran since the last load or save: the stored values are all replaced. */
    private bool $cleared = false;
    private ?Mutex $loading = null;
    private readonly ?string $requestedId;

    /**
     * @param string|null $id the id the client sent; a malformed one is ignored
     * @param int $ttl seconds an idle session is kept in the store
     */
    public function __construct(
        private readonly SessionStore $store,
        ?string $id = null,
        private readonly int $ttl = self::DEFAULT_TTL,
    ) {
        if ($ttl < 1) {
            throw new SessionError("A session TTL must be at least 1 second, {$ttl} given");
        }
        $this->requestedId = $id !== null && SessionId::isValid($id) ? $id : null;
    }

    /**
     * The session of the request: its attribute set by SessionMiddleware, else the one the
     * middleware put in the coroutine's Context (for code that has no Request at hand).
     *
     * @throws SessionError when no SessionMiddleware runs before this code
     */
    public static function from(?Request $request = null): self
    {
        $session = $request?->getAttribute(self::class) ?? Context::get(self::class);
        if (!$session instanceof self) {
            throw new SessionError('No session here: add ' . SessionMiddleware::class . ' to the middleware that runs before this code');
        }

        return $session;
    }

    public function get(string $key, mixed $default = null): mixed
    {
        $this->start();

        return \array_key_exists($key, $this->data) ? $this->data[$key] : $default;
    }

    /** @throws SessionError when $value cannot be stored as JSON */
    public function set(string $key, mixed $value): void
    {
        JsonValue::check($value, $key);
        $this->start();
        $this->data[$key] = $value;
        $this->changed[$key] = true;
        $this->dirty = true;
    }

    public function has(string $key): bool
    {
        $this->start();

        return \array_key_exists($key, $this->data);
    }

    public function remove(string $key): void
    {
        $this->start();
        if (\array_key_exists($key, $this->data)) {
            unset($this->data[$key]);
            $this->changed[$key] = true;
            $this->dirty = true;
        }
    }

    /** @return array<string, mixed> every value (flash values not included) */
    public function all(): array
    {
        $this->start();

        return $this->data;
    }

    /** Removes every value, including flash values set by this request. */
    public function clear(): void
    {
        $this->start();
        $this->data = [];
        $this->flashOut = [];
        $this->changed = [];
        $this->cleared = true;
        $this->dirty = true;
    }

    /**
     * Stores $value for the next request only (e.g. "Saved!" before a redirect).
     *
     * @throws SessionError when $value cannot be stored as JSON
     */
    public function flash(string $key, mixed $value): void
    {
        JsonValue::check($value, $key);
        $this->start();
        $this->flashOut[$key] = $value;
        $this->dirty = true;
    }

    /** A value the previous request flashed (not one flashed by this request). */
    public function getFlash(string $key, mixed $default = null): mixed
    {
        $this->start();

        return \array_key_exists($key, $this->flashIn) ? $this->flashIn[$key] : $default;
    }

    /**
     * Moves the session to a new id, keeping its values; the old id is deleted from the
     * store when the session is saved. Call it when the user's privileges change (after
     * login), so an id known to someone else before is worthless afterwards.
     */
    public function regenerateId(): void
    {
        $this->start();
        if ($this->stored) {
            $this->staleId = $this->id;
            $this->stored = false;
        }
        $this->id = SessionId::generate();
        $this->dirty = true;
    }

    /** The session id (starts the session, making a new id if there is none yet). */
    public function id(): string
    {
        $this->start();

        return $this->id ?? throw new \LogicException('unreachable: a started session has an id');
    }

    /** Whether the session has been loaded (or started new) during this request. */
    public function isStarted(): bool
    {
        return $this->started;
    }

    /** Whether this request changed the session (values, flash, id) since it was loaded or saved. */
    public function isDirty(): bool
    {
        return $this->dirty;
    }

    /**
     * Saves the session if needed; SessionMiddleware calls it after the handler.
     * Writes when something changed, when the session is not in the store yet, or when the
     * stored copy is older than a tenth of the TTL (so an active session does not expire).
     * An emptied session is deleted from the store instead.
     *
     * @internal
     * @return string|null the id to put in the cookie, '' to delete the cookie, null to leave it
     */
    public function save(): ?string
    {
        if (!$this->started) {
            return null;
        }
        if ($this->staleId !== null) {
            $this->store->destroy($this->staleId);
            $this->staleId = null;
        }
        $id = $this->id();
        $now = \time();
        if (!$this->dirty && $this->stored && $now - $this->savedAt < \max(1, \intdiv($this->ttl, 10))
            && ($this->data !== [] || $this->flashOut !== [])) {
            return null;
        }
        if (!$this->stored) {
            $payload = $this->data === [] && $this->flashOut === [] ? null : ['data' => $this->data, 'flash' => $this->flashOut, 'at' => $now];
            $payload === null || $this->store->write($id, $payload, $this->ttl);
        } elseif ($this->store instanceof AtomicSessionStore) {
            $payload = $this->store->update($id, fn (?array $stored): ?array => $this->merged($stored, $now), $this->ttl);
        } else {
            $payload = $this->merged($this->store->read($id), $now);
            $payload === null ? $this->store->destroy($id) : $this->store->write($id, $payload, $this->ttl);
        }
        $this->changed = [];
        $this->cleared = false;
        $this->flashInStored = false;
        $this->dirty = false;
        if ($payload === null) {
            $this->stored = false;
            $this->data = $this->flashOut = [];

            return $this->requestedId !== null ? '' : null;
        }
        $this->data = $payload['data'];
        $this->flashOut = $payload['flash'];
        $this->stored = true;
        $this->savedAt = $now;

        return $id;
    }

    /**
     * What to store: the stored copy as it is now with this request's changes applied (see
     * the class comment), or null when nothing is left (the session is deleted). A stored
     * copy that is gone keeps only this request's own keys and flash values. Computed from
     * $stored and this request's changes alone: an AtomicSessionStore may call it again.
     *
     * @param array<mixed>|null $stored
     * @return array{data: array<string, mixed>, flash: array<string, mixed>, at: int}|null
     */
    private function merged(?array $stored, int $now): ?array
    {
        $data = $this->cleared ? [] : self::stringKeyed($stored['data'] ?? null);
        foreach ($this->changed as $key => $_) {
            if (\array_key_exists($key, $this->data)) {
                $data[$key] = $this->data[$key];
            } else {
                unset($data[$key]);
            }
        }
        $flash = $this->cleared ? [] : self::stringKeyed($stored['flash'] ?? null);
        foreach ($this->flashInStored ? $this->flashIn : [] as $key => $value) {
            if (\array_key_exists($key, $flash) && $flash[$key] === $value) {
                unset($flash[$key]); // read by this request; one flashed again meanwhile stays
            }
        }

        $flash = $this->flashOut + $flash;

        return $data === [] && $flash === [] ? null : ['data' => $data, 'flash' => $flash, 'at' => $now];
    }

    private function start(): void
    {
        if ($this->started) {
            return;
        }
        $this->loading ??= new Mutex();
        $this->loading->synchronized(function (): void {
            if (!$this->started) {
                $this->load(); // may suspend: coroutines of the same request wait for it
            }
        });
    }

    private function load(): void
    {
        $payload = $this->requestedId === null ? null : $this->store->read($this->requestedId);
        if ($payload === null) {
            $this->id = SessionId::generate();
        } else {
            $this->id = $this->requestedId;
            $this->stored = true;
            $this->data = self::stringKeyed($payload['data'] ?? null);
            $this->flashIn = self::stringKeyed($payload['flash'] ?? null);
            $this->flashInStored = true;
            $this->savedAt = \is_int($payload['at'] ?? null) ? $payload['at'] : 0;
            $this->dirty = $this->flashIn !== []; // saving drops the flash values read now
        }
        $this->started = true;
    }

    /** @return array<string, mixed> */
    private static function stringKeyed(mixed $values): array
    {
        /** @var array<string, mixed> $result keys as PHP made them from the stored (JSON) maps */
        $result = \is_array($values) ? $values : [];

        return $result;
    }
}
