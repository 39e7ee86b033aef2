<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

/**
 * Encodes commands as RESP arrays of bulk strings, the only form a client sends.
 *
 * Arguments are binary safe. Accepted argument types:
 * - string: sent as is;
 * - int: decimal;
 * - float: locale-independent, shortest text that reads back as the same float
 *   ("0.1", "1.5e-7"); an integral float below 2^53 as plain digits ("3"),
 *   INF and -INF as "inf" and "-inf", NAN as "nan" (which Redis refuses where it
 *   expects a number);
 * - Stringable: its string.
 * Anything else (bool, null, array, other objects) is refused with a TypeError:
 * there is no single right text for them (false: "0" or ""?), so the caller decides.
 */
final class RespEncoder
{
    private function __construct()
    {
    }

    /**
     * The loop is here rather than behind a helper: every command of every call runs it.
     *
     * @param array<string|int|float|\Stringable> $command name and arguments, e.g. ['SET', 'key', 'value']
     * @param int|string|null $pipelineIndex the command's place in encodeMany(), named in errors
     * @throws \ValueError when the command is empty
     * @throws \TypeError  when an argument has an unsupported type
     */
    public static function encode(#[\SensitiveParameter] array $command, int|string|null $pipelineIndex = null): string
    {
        $count = \count($command);
        if ($count === 2 && \is_string($name = $command[0] ?? null) && \is_string($key = $command[1] ?? null)) {
            // GET key, INCR key…: one string built at once instead of one append per argument.
            $nameLength = \strlen($name);
            $keyLength = \strlen($key);

            return "*2\r\n\${$nameLength}\r\n{$name}\r\n\${$keyLength}\r\n{$key}\r\n";
        }
        if ($count === 0) {
            throw new \ValueError(self::where($pipelineIndex) . 'a Redis command needs at least a name, [] given');
        }
        $out = "*{$count}\r\n";
        foreach ($command as $position => $arg) {
            if (!\is_string($arg)) {
                $arg = self::text($arg, $position, $command, $pipelineIndex);
            }
            $length = \strlen($arg);
            $out .= "\${$length}\r\n{$arg}\r\n";
        }

        return $out;
    }

    /**
     * Encodes several commands back to back, for a pipeline.
     *
     * @param array<array<string|int|float|\Stringable>> $commands
     * @throws \ValueError when a command is empty
     * @throws \TypeError  when an argument has an unsupported type
     */
    public static function encodeMany(#[\SensitiveParameter] array $commands): string
    {
        $out = '';
        foreach ($commands as $index => $command) {
            $out .= self::encode($command, $index);
        }

        return $out;
    }

    /** @param array<mixed> $command */
    private static function text(
        mixed $arg,
        int|string $position,
        array $command,
        int|string|null $pipelineIndex,
    ): string {
        if (is_int($arg)) {
            return (string) $arg;
        }
        if (is_float($arg)) {
            return self::formatFloat($arg);
        }
        if ($arg instanceof \Stringable) {
            return (string) $arg;
        }
        $name = reset($command);

        throw new \TypeError(sprintf(
            '%sRedis command argument at index %s%s must be string|int|float|Stringable, %s given',
            self::where($pipelineIndex),
            var_export($position, true),
            is_string($name) && $position !== array_key_first($command) ? ' of ' . substr($name, 0, 64) : '',
            get_debug_type($arg),
        ));
    }

    /** The shortest locale-independent text that parses back to the same float. */
    public static function formatFloat(float $value): string
    {
        if (is_nan($value)) {
            return 'nan';
        }
        if (is_infinite($value)) {
            return $value > 0 ? 'inf' : '-inf';
        }
        if (floor($value) === $value && abs($value) < 9007199254740992.0) {
            return sprintf('%.0F', $value);
        }
        for ($precision = 15; $precision < 17; $precision++) {
            $text = sprintf('%.' . $precision . 'h', $value);
            if ((float) $text === $value) {
                return $text;
            }
        }

        return sprintf('%.17h', $value);
    }

    private static function where(int|string|null $pipelineIndex): string
    {
        return $pipelineIndex === null ? '' : sprintf('Pipeline command %s: ', var_export($pipelineIndex, true));
    }
}
