<?php

declare(strict_types=1);

namespace Petrel\Bench;

/**
 * How one point's req/s compares with another's (ScenarioResult::compare()). For points
 * that took turns, the median of the rounds' ratios, with their range: each round's pair
 * was measured seconds apart, so the host's drift between rounds stays out of it. For
 * points measured one after the other, the ratio of their medians ($rounds 0).
 */
final class Ratio
{
    public function __construct(
        public readonly float $median,
        public readonly float $min,
        public readonly float $max,
        /** Rounds paired (0: a ratio of medians). */
        public readonly int $rounds = 0,
    ) {
    }

    /** One ratio, of two medians: nothing paired. */
    public static function single(float $ratio): self
    {
        return new self($ratio, $ratio, $ratio);
    }
}
