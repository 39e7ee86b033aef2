<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Report\Markdown;

/** The "ratios" list under a scenario's table. */
final class Ratios
{
    /** @param array<string, ?float> $ratios label => ratio (null: not measured) */
    public static function lines(array $ratios): string
    {
        $lines = [];
        foreach ($ratios as $label => $ratio) {
            $lines[] = "- {$label}: **" . Markdown::ratio($ratio) . '**';
        }

        return \implode("\n", $lines) . "\n";
    }
}
