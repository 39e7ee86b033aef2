<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

use Petrel\Task\TaskException;
use ReflectionProperty;
use Throwable;

/**
 * Carries an exception thrown by a task from the task worker to the submitter.
 *
 * capture() keeps the class, message, code, file, line and trace (as text), and the
 * exception itself serialized when that works (the trace's arguments are dropped first: they
 * often hold closures, and they may be large). rebuild() returns the original exception
 * (its class, message, code and the task worker's trace and previous chain) when it can be
 * unserialized here, else a TaskException whose message starts with the original class and
 * whose $originalClass and $remoteTrace say the rest.
 *
 * @internal
 */
final class RemoteThrowable
{
    /**
     * Past this many bytes (message, trace and serialized form together) only a cut of the
     * message and the trace is sent: the reply must stay within TaskCodec::MAX_FRAME_BYTES,
     * and an exception over it (a 35 MB message, kept twice) killed the task worker.
     */
    private const WHOLE_BYTES = 16 * 1024 * 1024;
    private const CUT_BYTES = 65536;

    /** @return array{class: class-string, message: string, code: int|string, file: string, line: int, trace: string, serialized: ?string} */
    public static function capture(Throwable $error): array
    {
        $serialized = null;
        try {
            for ($link = $error; $link !== null; $link = $link->getPrevious()) {
                self::dropTraceArguments($link);
            }
            $serialized = \serialize($error);
        } catch (Throwable) {
            // Not serializable (a closure in a property): the description below must do.
        }
        $code = $error->getCode();
        $message = $error->getMessage();
        $trace = $error->getTraceAsString();
        if (\strlen($message) + \strlen($trace) + \strlen((string) $serialized) > self::WHOLE_BYTES) {
            [$serialized, $message, $trace] = [null, self::cut($message), self::cut($trace)];
        }

        return [
            'class' => $error::class,
            'message' => $message,
            'code' => \is_int($code) || \is_string($code) ? $code : 0,
            'file' => $error->getFile(),
            'line' => $error->getLine(),
            'trace' => $trace,
            'serialized' => $serialized,
        ];
    }

    private static function cut(string $text): string
    {
        return \strlen($text) <= self::CUT_BYTES ? $text : \sprintf('%s… (%d bytes in all)', \substr($text, 0, self::CUT_BYTES), \strlen($text));
    }

    /** @param string $where e.g. "task App\Resize in task worker pid 123" */
    public static function rebuild(mixed $data, string $where): Throwable
    {
        if (!\is_array($data)) {
            return new TaskException("{$where} threw an exception that could not be decoded");
        }
        $serialized = $data['serialized'] ?? null;
        if (\is_string($serialized)) {
            try {
                $error = @\unserialize($serialized);
                if ($error instanceof Throwable) {
                    return $error;
                }
            } catch (Throwable) {
                // Fall through to the description.
            }
        }
        $class = \is_string($data['class'] ?? null) ? $data['class'] : 'unknown';
        $message = \is_string($data['message'] ?? null) ? $data['message'] : '';
        $code = $data['code'] ?? 0;
        $trace = \is_string($data['trace'] ?? null) ? $data['trace'] : '';

        return new TaskException(
            \sprintf('%s: %s (thrown by %s at %s:%s)', $class, $message, $where, \is_string($data['file'] ?? null) ? $data['file'] : '?', \is_int($data['line'] ?? null) ? $data['line'] : '?'),
            \is_int($code) ? $code : 0,
            null,
            $class,
            $trace,
        );
    }

    private static function dropTraceArguments(Throwable $error): void
    {
        $property = new ReflectionProperty($error instanceof \Exception ? \Exception::class : \Error::class, 'trace');
        $trace = $property->getValue($error);
        if (!\is_array($trace)) {
            return;
        }
        foreach ($trace as $index => $frame) {
            if (\is_array($frame)) {
                unset($frame['args']);
                $trace[$index] = $frame;
            }
        }
        $property->setValue($error, $trace);
    }
}
