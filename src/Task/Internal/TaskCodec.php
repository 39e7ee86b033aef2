<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

use Closure;
use Petrel\Task\TaskError;
use Petrel\Task\TaskException;
use Throwable;

/**
 * The task transport's wire format, pure (no I/O). Every message is a frame: a 4-byte
 * big-endian length, then that many bytes of PHP serialize() output.
 *
 * - request (submitter → worker): [task, args, deadline]
 * - replies (worker → submitter), [kind, data]: STARTED (data: the worker's pid, sent before
 *   the task runs), then one of RESULT (the return value), THROWN (RemoteThrowable data),
 *   DIED (why the worker is dying: a fatal error, exit()) or REFUSED (misuse the worker
 *   found: unknown task).
 *
 * PHP serialization is safe here because both ends are the same application and the socket
 * is reachable by its owner only (mode 0600).
 *
 * @internal
 */
final class TaskCodec
{
    public const HEADER_BYTES = 4;
    public const MAX_FRAME_BYTES = 64 * 1024 * 1024;

    public const STARTED = 's';
    public const RESULT = 'r';
    public const THROWN = 't';
    public const DIED = 'd';
    public const REFUSED = 'x';

    /**
     * @param array<array-key, mixed> $args
     * @throws TaskError when the arguments cannot cross processes
     */
    public static function encodeRequest(string $task, array $args, float $deadline): string
    {
        $resource = self::find($args, self::isResource(...));
        if ($resource !== null) {
            throw new TaskError("Task {$task}: argument " . self::path($resource[0]) . ' is a resource; resources cannot cross processes (pass a path or the data instead)');
        }
        try {
            $payload = \serialize([$task, $args, $deadline]);
        } catch (Throwable $error) {
            throw new TaskError("Task {$task}: its arguments cannot be sent to a task worker ({$error->getMessage()}); closures and resources cannot cross processes — pass a class name and plain values", 0, $error);
        }

        return self::frame($payload, "the arguments of task {$task}", true);
    }

    /** @throws TaskException on bytes that are not a request */
    public static function decodeRequest(string $payload): TaskRequest
    {
        $value = self::unserialize($payload);
        if (!\is_array($value) || !\is_string($value[0] ?? null) || !\is_array($value[1] ?? null) || !\is_float($value[2] ?? null)) {
            throw new TaskException('Malformed task request');
        }

        return new TaskRequest($value[0], $value[1], $value[2]);
    }

    /**
     * @param self::STARTED|self::RESULT|self::THROWN|self::DIED|self::REFUSED $kind
     * @throws TaskException when $data cannot be sent (a result holding a closure or a
     *         resource: serialize() writes a resource as the integer 0, silently)
     */
    public static function encodeReply(string $kind, mixed $data): string
    {
        $resource = $kind === self::RESULT ? self::find([$data], self::isResource(...)) : null;
        if ($resource !== null) {
            throw new TaskException(\sprintf("The task's result %s; resources cannot cross processes (return a path or the data instead)", self::where($resource[0], 'is a resource', 'holds a resource at %s')));
        }
        try {
            $payload = \serialize([$kind, $data]);
        } catch (Throwable $error) {
            throw new TaskException("the result cannot be sent back from the task worker: {$error->getMessage()}", 0, $error);
        }

        return self::frame($payload, 'the result', false);
    }

    /**
     * @return array{string, mixed} [kind, data]
     * @throws TaskException on bytes that are not a reply
     */
    public static function decodeReply(string $payload): array
    {
        $value = self::unserialize($payload);
        if (!\is_array($value) || !\is_string($value[0] ?? null) || !\array_key_exists(1, $value)
            || !\in_array($value[0], [self::STARTED, self::RESULT, self::THROWN, self::DIED, self::REFUSED], true)) {
            throw new TaskException('Malformed reply from a task worker');
        }
        // Only an object ("O:", or "C:" for Serializable) can come back incomplete: a result
        // of plain values is not walked.
        $unknown = $value[0] === self::RESULT && (\str_contains($payload, 'O:') || \str_contains($payload, 'C:'))
            ? self::find([$value[1]], static fn (mixed $item): bool => $item instanceof \__PHP_Incomplete_Class)
            : null;
        if ($unknown !== null) {
            $class = ((array) $unknown[1])['__PHP_Incomplete_Class_Name'] ?? 'unknown';
            throw new TaskException(\sprintf("The task's result %s of class %s, which this process cannot load (unserialize() made it a __PHP_Incomplete_Class): make the class autoloadable in the HTTP workers too, or return plain values", self::where($unknown[0], 'is an object', 'holds an object at %s'), \is_string($class) ? $class : 'unknown'));
        }

        return [$value[0], $value[1]];
    }

    /**
     * The payload length announced by a frame header.
     *
     * @throws TaskException when the header is short or announces more than MAX_FRAME_BYTES
     */
    public static function frameLength(string $header): int
    {
        if (\strlen($header) !== self::HEADER_BYTES) {
            throw new TaskException('Truncated task frame header');
        }
        $length = \unpack('N', $header)[1] ?? 0;
        if (!\is_int($length) || $length > self::MAX_FRAME_BYTES) {
            throw new TaskException(\sprintf('Task frame of %d bytes exceeds the %d-byte limit', $length, self::MAX_FRAME_BYTES));
        }

        return $length;
    }

    private static function frame(string $payload, string $what, bool $misuse): string
    {
        if (\strlen($payload) > self::MAX_FRAME_BYTES) {
            $message = \sprintf('%s take %d bytes serialized; the limit is %d (pass a path instead of the data)', \ucfirst($what), \strlen($payload), self::MAX_FRAME_BYTES);
            throw $misuse ? new TaskError($message) : new TaskException($message);
        }

        return \pack('N', \strlen($payload)) . $payload;
    }

    private static function unserialize(string $payload): mixed
    {
        if ($payload === 'b:0;') {
            return false;
        }
        try {
            $value = @\unserialize($payload);
        } catch (Throwable $error) {
            throw new TaskException("Undecodable task frame: {$error->getMessage()}", 0, $error);
        }
        if ($value === false) {
            throw new TaskException('Undecodable task frame');
        }

        return $value;
    }

    /**
     * "is a resource" for the value itself (one step), "holds a resource at ['f'][2]" for
     * one within it.
     *
     * @param non-empty-list<array{array-key, bool}> $steps
     */
    private static function where(array $steps, string $itself, string $within): string
    {
        return \count($steps) === 1 ? $itself : \sprintf($within, self::path(\array_slice($steps, 1)));
    }

    /**
     * "['rows'][1]->file".
     *
     * @param list<array{array-key, bool}> $steps keys, and whether each is a property's
     *        (mangled: "\0Class\0name" when private, "\0*\0name" when protected)
     */
    private static function path(array $steps): string
    {
        $path = '';
        foreach ($steps as [$key, $property]) {
            $path .= $property
                ? '->' . \substr((string) \strrchr("\0{$key}", "\0"), 1)
                : '[' . \var_export($key, true) . ']';
        }

        return $path;
    }

    /**
     * The steps (keys, property names) leading to the first value in $values that $matches,
     * and that value; null when none does. Arrays are walked, and objects' properties (each
     * object once) unless the class decides what it serializes (__serialize(), __sleep(),
     * Serializable): a resource it leaves out is not sent. The path is made only for the
     * value found: built for every value, it cost 4× serialize() on 10,000 rows.
     *
     * @param array<array-key, mixed> $values
     * @param Closure(mixed): bool $matches
     * @param array<int, true> $seen ids of the objects walked already
     * @param bool $properties whether $values are an object's properties
     * @return array{non-empty-list<array{array-key, bool}>, mixed}|null
     */
    private static function find(array $values, Closure $matches, array &$seen = [], bool $properties = false): ?array
    {
        foreach ($values as $key => $value) {
            if ($matches($value)) {
                return [[[$key, $properties]], $value];
            }
            $found = null;
            if (\is_array($value)) {
                $found = self::find($value, $matches, $seen);
            } elseif (\is_object($value) && !isset($seen[\spl_object_id($value)]) && self::isPlainObject($value)) {
                $seen[\spl_object_id($value)] = true;
                $found = self::find(\get_mangled_object_vars($value), $matches, $seen, true);
            }
            if ($found !== null) {
                return [[[$key, $properties], ...$found[0]], $found[1]];
            }
        }

        return null;
    }

    private static function isPlainObject(object $value): bool
    {
        return !$value instanceof \Serializable && !$value instanceof \Closure
            && !\method_exists($value, '__serialize') && !\method_exists($value, '__sleep');
    }

    /** A resource, open or closed (gettype() "resource (closed)": is_resource() says false). */
    private static function isResource(mixed $value): bool
    {
        return $value !== null && !\is_scalar($value) && !\is_array($value) && !\is_object($value);
    }
}
