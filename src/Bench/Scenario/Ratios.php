<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Ratio;
use Petrel\Bench\Report\Markdown;

/** The "ratios" list under a scenario's table. */
final class Ratios
{
    /**
     * One line per ratio: its median in bold and, when it was paired over several
     * rounds, their range (how much the host moved it).
     *
     * @param array<string, ?Ratio> $ratios label => ratio (null: not measured)
     */
    public static function lines(array $ratios): string
    {
        $lines = [];
        foreach ($ratios as $label => $ratio) {
            $range = $ratio !== null && $ratio->rounds > 1
                ? ' (' . Markdown::ratio($ratio->min) . '–' . Markdown::ratio($ratio->max) . " over {$ratio->rounds} rounds)"
                : '';
            $lines[] = "- {$label}: **" . Markdown::ratio($ratio?->median) . "**{$range}";
        }

        return \implode("\n", $lines) . "\n";
    }
}
