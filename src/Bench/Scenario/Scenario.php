<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\BenchException;
use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Rig;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Server\Server;
use Petrel\Bench\SkipException;

/**
 * One of the seeds' experiments: the points it measures, how to start each server they
 * name, and how its results read as a table and a chart.
 */
interface Scenario
{
    public function name(): string;

    /** A heading: what is compared. */
    public function title(): string;

    /** What it measures and how, one paragraph of Markdown for the report. */
    public function description(): string;

    /**
     * In run order; consecutive points on the same server share one start of it.
     *
     * @return list<Point>
     */
    public function plan(Options $options): array;

    /**
     * @throws SkipException when this machine lacks what the server needs
     * @throws BenchException when the server fails to start or to serve the expected page
     */
    public function start(string $server, Rig $rig): Server;

    /** The scenario's own table (shaped like the seed's) with its ratios, in Markdown. */
    public function summary(ScenarioResult $result): string;

    public function chart(ScenarioResult $result): ?Chart;
}
