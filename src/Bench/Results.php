<?php

declare(strict_types=1);

namespace Petrel\Bench;

use JsonException;

/**
 * Everything one `petrel bench` run produced: what ran, on what machine, with which
 * options, and every raw figure. results.json is this, and the report and the charts are
 * made from it alone (`petrel bench --report=DIR` remakes them).
 */
final class Results
{
    /**
     * @param array<string, string> $machine
     * @param array<string, int|float|string|bool> $options
     * @param list<ScenarioResult> $scenarios
     */
    public function __construct(
        public readonly string $command,
        public readonly string $started,
        public readonly string $finished,
        public readonly array $machine,
        public readonly array $options,
        public readonly array $scenarios,
    ) {
    }

    public function scenario(string $name): ?ScenarioResult
    {
        foreach ($this->scenarios as $scenario) {
            if ($scenario->name === $name) {
                return $scenario;
            }
        }

        return null;
    }

    public function toJson(): string
    {
        return \json_encode([
            'command' => $this->command,
            'started' => $this->started,
            'finished' => $this->finished,
            'machine' => $this->machine,
            'options' => $this->options,
            'scenarios' => \array_map(static fn (ScenarioResult $s): array => $s->toArray(), $this->scenarios),
        ], \JSON_PRETTY_PRINT | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION | \JSON_THROW_ON_ERROR) . "\n";
    }

    /** @throws BenchException when $json is not a results.json */
    public static function fromJson(string $json): self
    {
        try {
            $data = \json_decode($json, true, 64, \JSON_THROW_ON_ERROR);
        } catch (JsonException $error) {
            throw new BenchException("results.json is not valid JSON: {$error->getMessage()}");
        }
        if (!\is_array($data) || !\is_array($data['scenarios'] ?? null) || !\is_array($data['machine'] ?? null)) {
            throw new BenchException('results.json lacks "scenarios" or "machine": not written by petrel bench');
        }
        $scenarios = [];
        foreach ($data['scenarios'] as $scenario) {
            if (\is_array($scenario)) {
                /** @var array<string, mixed> $scenario */
                $scenarios[] = ScenarioResult::fromArray($scenario);
            }
        }
        /** @var array<string, string> $machine */
        $machine = \array_map(static fn (mixed $v): string => \is_scalar($v) ? (string) $v : '', $data['machine']);
        /** @var array<string, int|float|string|bool> $options */
        $options = \is_array($data['options'] ?? null) ? \array_filter($data['options'], 'is_scalar') : [];

        return new self(
            self::text($data['command'] ?? ''),
            self::text($data['started'] ?? ''),
            self::text($data['finished'] ?? ''),
            $machine,
            $options,
            $scenarios,
        );
    }

    private static function text(mixed $value): string
    {
        return \is_scalar($value) ? (string) $value : '';
    }
}
