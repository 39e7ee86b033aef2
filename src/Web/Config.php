<?php

declare(strict_types=1);

namespace Petrel\Web;

/**
 * Immutable application settings: nested arrays read with dot paths ("db.url"). Built once
 * per worker; get() is one hash lookup, because every path (leaves and subtrees) is
 * indexed when the Config is made.
 *
 * fromArray() and fromFile() apply environment overrides: a key "db.url" present in the
 * array is replaced by the variable APP_DB_URL (prefix configurable; the path is upper-cased
 * and every character that is not a letter or digit becomes "_"). The value in the array
 * fixes the type: a bool accepts true/false/1/0/yes/no/on/off, an int an integer, a float a
 * number; a null or string takes the text as is; arrays cannot be overridden. A value of the
 * wrong type fails at boot with a ConfigException. Only keys present in the array are
 * looked up, so declare every overridable key with its default.
 */
final class Config
{
    /** @var array<string, mixed> every dot path, leaves and subtrees */
    private array $paths = [];

    /** @param array<array-key, mixed> $items nested settings, used as they are (no environment) */
    public function __construct(private readonly array $items = [])
    {
        $this->index($this->items, '');
    }

    /**
     * @param array<array-key, mixed> $items
     * @param string|null $envPrefix null: no environment overrides
     * @param array<string, string>|null $env the variables to use; null: the process environment
     * @throws ConfigException when a variable's value does not fit the key's type
     */
    public static function fromArray(array $items, ?string $envPrefix = 'APP_', ?array $env = null): self
    {
        return new self($envPrefix === null ? $items : self::override($items, '', $envPrefix, $env ?? \getenv()));
    }

    /**
     * Loads a PHP file that returns an array (`return ['db' => ['url' => '…']];`).
     *
     * @param array<string, string>|null $env
     * @throws ConfigException when the file is missing or does not return an array
     */
    public static function fromFile(string $path, ?string $envPrefix = 'APP_', ?array $env = null): self
    {
        if (!\is_file($path) || !\is_readable($path)) {
            throw new ConfigException("Config file {$path} does not exist or is not readable");
        }
        $items = (static fn (string $file): mixed => require $file)($path);
        if (!\is_array($items)) {
            throw new ConfigException("Config file {$path} must return an array, got " . \get_debug_type($items));
        }

        return self::fromArray($items, $envPrefix, $env);
    }

    /** The value at a dot path ("db.url"), a subtree as an array, or $default when absent. */
    public function get(string $key, mixed $default = null): mixed
    {
        return \array_key_exists($key, $this->paths) ? $this->paths[$key] : $default;
    }

    public function has(string $key): bool
    {
        return \array_key_exists($key, $this->paths);
    }

    /** @return array<array-key, mixed> */
    public function all(): array
    {
        return $this->items;
    }

    /** A copy with $value at the dot path $key (intermediate levels are created or replaced). */
    public function with(string $key, mixed $value): self
    {
        $items = $this->items;
        $node = &$items;
        foreach (\explode('.', $key) as $segment) {
            if (!\is_array($node)) {
                $node = [];
            }
            $node = &$node[$segment];
        }
        $node = $value;
        unset($node);

        return new self($items);
    }

    /** @param array<array-key, mixed> $items */
    private function index(array $items, string $prefix): void
    {
        foreach ($items as $key => $value) {
            $path = $prefix . $key;
            $this->paths[$path] = $value;
            if (\is_array($value)) {
                $this->index($value, $path . '.');
            }
        }
    }

    /**
     * @param array<array-key, mixed> $items
     * @param array<string, string> $env
     * @return array<array-key, mixed>
     */
    private static function override(array $items, string $path, string $envPrefix, array $env): array
    {
        foreach ($items as $key => $value) {
            $keyPath = $path . $key;
            if (\is_array($value)) {
                $items[$key] = self::override($value, $keyPath . '.', $envPrefix, $env);
                continue;
            }
            $name = $envPrefix . \strtoupper((string) \preg_replace('/[^A-Za-z0-9]/', '_', $keyPath));
            if (isset($env[$name])) {
                $items[$key] = self::coerce($env[$name], $value, $name);
            }
        }

        return $items;
    }

    private static function coerce(string $text, mixed $original, string $name): mixed
    {
        $trimmed = \trim($text);
        if (\is_bool($original)) {
            return match (\strtolower($trimmed)) {
                'true', '1', 'yes', 'on' => true,
                'false', '0', 'no', 'off', '' => false,
                default => throw new ConfigException("{$name} must be a boolean (true/false/1/0), got \"{$text}\""),
            };
        }
        if (\is_int($original)) {
            $int = \filter_var($trimmed, \FILTER_VALIDATE_INT);

            return \is_int($int) ? $int : throw new ConfigException("{$name} must be an integer, got \"{$text}\"");
        }
        if (\is_float($original)) {
            if (!\is_numeric($trimmed)) {
                throw new ConfigException("{$name} must be a number, got \"{$text}\"");
            }

            return (float) $trimmed;
        }

        return $text;
    }
}
