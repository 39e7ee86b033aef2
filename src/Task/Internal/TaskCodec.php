<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

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
        $resource = self::findResource($args);
        if ($resource !== null) {
            throw new TaskError("Task {$task}: argument {$resource} is a resource; resources cannot cross processes (pass a path or the data instead)");
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
        $resource = $kind === self::RESULT ? self::findResource([$data]) : null;
        if ($resource !== null) {
            throw new TaskException(\sprintf("The task's result %s; resources cannot cross processes (return a path or the data instead)", self::where($resource, 'is a resource', 'holds a resource at %s')));
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
        if ($value[0] === self::RESULT && ($unknown = self::findIncomplete([$value[1]])) !== null) {
            [$path, $class] = $unknown;
            throw new TaskException(\sprintf("The task's result %s of class %s, which this process cannot load (unserialize() made it a __PHP_Incomplete_Class): make the class autoloadable in the HTTP workers too, or return plain values", self::where($path, 'is an object', 'holds an object at %s'), $class));
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

    /** "is a resource" for the path of the value itself ("[0]"), "holds a resource at ['f'][2]" for one within it. */
    private static function where(string $path, string $itself, string $within): string
    {
        return $path === '[0]' ? $itself : \sprintf($within, \substr($path, 3));
    }

    /**
     * The path and class name of the first object in $values (arrays walked) whose class
     * was unknown to unserialize(), or null.
     *
     * @param array<array-key, mixed> $values
     * @return array{string, string}|null
     */
    private static function findIncomplete(array $values, string $path = ''): ?array
    {
        foreach ($values as $key => $value) {
            $here = "{$path}[" . \var_export($key, true) . ']';
            if ($value instanceof \__PHP_Incomplete_Class) {
                $class = ((array) $value)['__PHP_Incomplete_Class_Name'] ?? 'unknown';

                return [$here, \is_string($class) ? $class : 'unknown'];
            }
            if (\is_array($value) && ($found = self::findIncomplete($value, $here)) !== null) {
                return $found;
            }
        }

        return null;
    }

    /** @param array<array-key, mixed> $args the path of the first resource found ("[1][0]"), or null */
    private static function findResource(array $args, string $path = ''): ?string
    {
        foreach ($args as $key => $value) {
            $here = "{$path}[" . \var_export($key, true) . ']';
            if (\is_resource($value) || \gettype($value) === 'resource (closed)') {
                return $here;
            }
            if (\is_array($value) && ($found = self::findResource($value, $here)) !== null) {
                return $found;
            }
        }

        return null;
    }
}
