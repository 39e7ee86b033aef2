<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

/**
 * A scenario whose servers are compared with one another, so its ratios are its point:
 * the Runner starts all of its servers at once and its points take turns — the first run
 * of each, then the second of each, and so on — rather than one point's runs back to
 * back. On a host whose speed drifts within minutes, the drift then falls on every point
 * alike instead of on whichever ran in its slow minute. For servers that can idle side by
 * side (a handful, not fifty workers each holding database connections).
 */
interface TakesTurns extends Scenario
{
}
