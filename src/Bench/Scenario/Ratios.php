<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Report\Markdown;
use Petrel\Bench\Stats;

/** The "ratios" list under a scenario's table. */
final class Ratios
{
    /** @param array<string, array{?float, ?float}> $ratios label => [a, b], shown as a / b */
    public static function lines(array $ratios): string
    {
        $lines = [];
        foreach ($ratios as $label => [$a, $b]) {
            $lines[] = "- {$label}: **" . Markdown::ratio($a === null || $b === null ? null : Stats::ratio($a, $b)) . '**';
        }

        return \implode("\n", $lines) . "\n";
    }
}
