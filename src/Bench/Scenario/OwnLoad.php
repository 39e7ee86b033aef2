<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Point;
use Petrel\Bench\Rig;
use Petrel\Bench\SkipException;

/**
 * A scenario whose points are not loaded with `--load` (wrk, ab) but with a generator of
 * its own, e.g. WebSocket clients. The Runner still checks the page at the point's path,
 * samples the server's processes during each run and keeps the generator's figures.
 */
interface OwnLoad extends Scenario
{
    /**
     * The load generator of $point; asked before its server is started.
     *
     * @throws SkipException when this machine lacks the generator
     */
    public function load(Point $point, Rig $rig): LoadGenerator;

    /**
     * True when each run of $point needs a server that has served nothing but the page
     * check (no warm-up, a new start before every run): for figures such as memory growth,
     * which an allocator that keeps what earlier runs freed would hide.
     */
    public function freshServer(Point $point): bool;
}
