<?php

declare(strict_types=1);

namespace Petrel\Web\Validation\Internal;

/**
 * Dot paths into nested input: "address.city" is $input['address']['city'] (a key that
 * itself contains the dot wins, for flat input such as query strings).
 *
 * @internal
 */
final class InputPath
{
    /**
     * @param array<mixed> $input
     * @return array{bool, mixed} [present, value]
     */
    public static function get(array $input, string $path): array
    {
        if (\array_key_exists($path, $input)) {
            return [true, $input[$path]];
        }
        $node = $input;
        foreach (\explode('.', $path) as $segment) {
            if (!\is_array($node) || !\array_key_exists($segment, $node)) {
                return [false, null];
            }
            $node = $node[$segment];
        }

        return [true, $node];
    }

    /** @param array<mixed> $output */
    public static function set(array &$output, string $path, mixed $value): void
    {
        $node = &$output;
        foreach (\explode('.', $path) as $segment) {
            if (!\is_array($node)) {
                $node = [];
            }
            $node = &$node[$segment];
        }
        $node = $value;
    }
}
