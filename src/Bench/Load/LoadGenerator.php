<?php

declare(strict_types=1);

namespace Petrel\Bench\Load;

/**
 * A command-line load generator (wrk, ab): builds its command line and reads its report.
 * Parsing is pure, so it is tested on captured real output.
 */
interface LoadGenerator
{
    /** The executable's name, for the "install this" message. */
    public function name(): string;

    /** The Debian package that provides it. */
    public function package(): string;

    /**
     * @param int $seconds       how long to keep the load up
     * @param float $timeout     seconds after which a request counts as failed
     * @return list<string> argv, executable first
     */
    public function command(string $url, int $connections, int $seconds, float $timeout): array;

    /** @throws LoadException when the output holds no result (the tool failed) */
    public function parse(string $output): LoadResult;
}
