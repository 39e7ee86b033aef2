<?php

declare(strict_types=1);

namespace Petrel\Bench\Report;

use Petrel\Bench\ScenarioResult;

/** The two shapes of chart the scenarios draw, built from their results' req/s. */
final class Charts
{
    /** One bar per point (x = the point's series name), median with min–max whiskers. */
    public static function bars(ScenarioResult $result, string $title): ?Chart
    {
        $points = [];
        foreach ($result->points as $point) {
            if ($point->measured()) {
                $points[] = [$point->point->describe(), $point->median('rps'), $point->min('rps'), $point->max('rps')];
            }
        }

        return $points === [] ? null : new Chart($result->name, $title, '', 'requests per second (median, min–max)', Chart::BARS, ['req/s' => $points]);
    }

    /** One series per point series, over the points' x values. */
    public static function series(ScenarioResult $result, string $title, string $xLabel, string $style, bool $logY = false): ?Chart
    {
        $series = [];
        foreach ($result->points as $point) {
            if ($point->measured()) {
                $series[$point->point->series][] = [$point->point->x, $point->median('rps'), $point->min('rps'), $point->max('rps')];
            }
        }
        $chart = new Chart($result->name, $title, $xLabel, 'requests per second (median, min–max)', $style, $series, $logY);

        return $series === [] ? null : $chart;
    }
}
