<?php

declare(strict_types=1);

namespace Petrel\Bench;

/** What one scenario measured, plus notes on what it could not (missing tools, failed servers). */
final class ScenarioResult
{
    /**
     * @param list<PointResult> $points
     * @param list<string> $notes
     */
    public function __construct(
        public readonly string $name,
        public readonly array $points,
        public readonly array $notes = [],
    ) {
    }

    /** The point of $series at $x, if it was planned. */
    public function find(string $series, string $x = ''): ?PointResult
    {
        foreach ($this->points as $result) {
            if ($result->point->series === $series && $result->point->x === $x) {
                return $result;
            }
        }

        return null;
    }

    /** Median req/s of a point, or null when it was not measured. */
    public function rps(string $series, string $x = ''): ?float
    {
        $result = $this->find($series, $x);

        return $result !== null && $result->measured() ? $result->median('rps') : null;
    }

    /**
     * Req/s of $series over that of $other (both at $x), or null when either was not
     * measured or the other answered nothing: see compare().
     */
    public function ratio(string $series, string $other, string $x = ''): ?float
    {
        return $this->compare($series, $other, $x)?->median;
    }

    /**
     * Req/s of $series against that of $other (both at $x). Points that took turns (their
     * runs carry the round they were taken in) are compared round by round: the median of
     * the rounds' ratios, with their min and max. Otherwise, or with no round in common,
     * the ratio of the medians. Null when either was not measured or the other answered
     * nothing.
     */
    public function compare(string $series, string $other, string $x = ''): ?Ratio
    {
        $a = $this->find($series, $x);
        $b = $this->find($other, $x);
        if ($a === null || $b === null || !$a->measured() || !$b->measured()) {
            return null;
        }
        $ratios = [];
        $byRound = self::byRound($b);
        foreach (self::byRound($a) as $round => $rps) {
            if (isset($byRound[$round]) && ($ratio = Stats::ratio($rps, $byRound[$round])) !== null) {
                $ratios[] = $ratio;
            }
        }
        if ($ratios !== []) {
            return new Ratio(Stats::median($ratios), \min($ratios), \max($ratios), \count($ratios));
        }
        $ratio = Stats::ratio($a->median('rps'), $b->median('rps'));

        return $ratio === null ? null : Ratio::single($ratio);
    }

    /** @return list<string> series names in plan order */
    public function series(): array
    {
        return \array_values(\array_unique(\array_map(static fn (PointResult $r): string => $r->point->series, $this->points)));
    }

    /** @return list<string> x values in plan order */
    public function xs(): array
    {
        return \array_values(\array_unique(\array_map(static fn (PointResult $r): string => $r->point->x, $this->points)));
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return [
            'name' => $this->name,
            'notes' => $this->notes,
            'points' => \array_map(static fn (PointResult $r): array => $r->toArray(), $this->points),
        ];
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        $points = [];
        foreach (\is_array($data['points'] ?? null) ? $data['points'] : [] as $point) {
            if (\is_array($point)) {
                /** @var array<string, mixed> $point */
                $points[] = PointResult::fromArray($point);
            }
        }
        $notes = \is_array($data['notes'] ?? null) ? \array_values(\array_filter($data['notes'], 'is_string')) : [];
        $name = $data['name'] ?? '';

        return new self(\is_string($name) ? $name : '', $points, $notes);
    }

    /** @return array<int, float> req/s by round, for the runs that say theirs */
    private static function byRound(PointResult $point): array
    {
        $rates = [];
        foreach ($point->runs as $run) {
            if (isset($run['round'], $run['rps'])) {
                $rates[(int) $run['round']] = (float) $run['rps'];
            }
        }

        return $rates;
    }
}
