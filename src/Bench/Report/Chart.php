<?php

declare(strict_types=1);

namespace Petrel\Bench\Report;

/**
 * A chart, independent of how it is drawn: named series of points (x label, median y and
 * the min–max of the runs), drawn as bars (clustered when there are several series) or
 * as lines over ordered x values.
 */
final class Chart
{
    public const BARS = 'bars';
    public const LINES = 'lines';

    /**
     * @param array<string, list<array{string, float, float, float}>> $series name => [x, y, min, max], same xs in each
     */
    public function __construct(
        public readonly string $name,
        public readonly string $title,
        public readonly string $xLabel,
        public readonly string $yLabel,
        public readonly string $style,
        public readonly array $series,
        public readonly bool $logY = false,
    ) {
    }

    /** @return list<string> the x labels, in order */
    public function xs(): array
    {
        $xs = [];
        foreach ($this->series as $points) {
            foreach ($points as [$x]) {
                $xs[$x] = true;
            }
        }

        return \array_map('strval', \array_keys($xs));
    }

    public function isEmpty(): bool
    {
        foreach ($this->series as $points) {
            if ($points !== []) {
                return false;
            }
        }

        return true;
    }
}
