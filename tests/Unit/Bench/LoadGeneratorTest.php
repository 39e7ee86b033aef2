<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Load\ApacheBench;
use Petrel\Bench\Load\LoadException;
use Petrel\Bench\Load\Wrk;
use PHPUnit\Framework\TestCase;

/** wrk and ab output, captured from real runs against Petrel (fixtures/*.txt). */
final class LoadGeneratorTest extends TestCase
{
    public function testWrkHelloRun(): void
    {
        $result = (new Wrk(2))->parse(self::fixture('wrk-hello.txt'));

        self::assertSame(50885.39, $result->requestsPerSecond);
        self::assertSame(101919, $result->requests);
        self::assertEqualsWithDelta(0.752, $result->p50Ms, 1e-9);  // "752.00us"
        self::assertEqualsWithDelta(7.04, $result->p90Ms, 1e-9);
        self::assertEqualsWithDelta(14.10, $result->p99Ms, 1e-9);
        self::assertSame(0, $result->errors);
        self::assertSame(0, $result->non2xx);
    }

    public function testWrkCountsNon2xxAnswers(): void
    {
        $result = (new Wrk(2))->parse(self::fixture('wrk-non2xx.txt'));

        self::assertSame(113346, $result->non2xx);
        self::assertSame(0, $result->errors);
        self::assertEqualsWithDelta(0.184, $result->p50Ms, 1e-9);
    }

    public function testWrkCountsTimeoutsAsErrors(): void
    {
        $result = (new Wrk(2))->parse(self::fixture('wrk-timeouts.txt'));

        self::assertSame(20, $result->errors);
        self::assertSame(6.65, $result->requestsPerSecond);
    }

    public function testWrkLatenciesInSeconds(): void
    {
        $result = (new Wrk(2))->parse(self::fixture('wrk-seconds.txt'));

        self::assertEqualsWithDelta(1200.0, $result->p50Ms, 1e-9);
        self::assertEqualsWithDelta(1210.0, $result->p99Ms, 1e-9);
        self::assertSame(9, $result->requests);
    }

    public function testWrkThatCouldNotConnectIsAnError(): void
    {
        $this->expectException(LoadException::class);
        $this->expectExceptionMessage('unable to connect to 127.0.0.1:1 Connection refused');

        (new Wrk(2))->parse(self::fixture('wrk-refused.txt'));
    }

    public function testWrkOutputWithoutLatencyTableIsAnError(): void
    {
        $output = \preg_replace('/  Latency Distribution.*?99%[^\n]*\n/s', '', self::fixture('wrk-hello.txt'));

        $this->expectException(LoadException::class);
        $this->expectExceptionMessage('--latency');

        (new Wrk(2))->parse((string) $output);
    }

    public function testWrkCommandUsesNoMoreThreadsThanConnections(): void
    {
        self::assertSame(['wrk', '-t2', '-c100', '-d5s', '--latency', '--timeout', '10s', 'http://127.0.0.1:1/'],
            (new Wrk(2))->command('http://127.0.0.1:1/', 100, 5, 10.0));
        self::assertSame('-t1', (new Wrk(2))->command('http://x/', 1, 5, 2.5)[1]);
        self::assertSame('3s', (new Wrk(2))->command('http://x/', 1, 5, 2.5)[6]);
    }

    public function testAbHelloRun(): void
    {
        $result = (new ApacheBench())->parse(self::fixture('ab-hello.txt'));

        self::assertSame(50119.17, $result->requestsPerSecond);
        self::assertSame(100239, $result->requests);
        self::assertSame(1.0, $result->p50Ms);
        self::assertSame(1.0, $result->p90Ms);
        self::assertSame(8.0, $result->p99Ms);
        self::assertSame(0, $result->errors);
        self::assertSame(0, $result->non2xx);
    }

    public function testAbCountsNon2xxAnswers(): void
    {
        $result = (new ApacheBench())->parse(self::fixture('ab-non2xx.txt'));

        self::assertSame(81487, $result->non2xx);
        self::assertSame(40743.36, $result->requestsPerSecond);
    }

    public function testAbFailedRequestsAreErrors(): void
    {
        $output = \str_replace('Failed requests:        0', "Failed requests:        12\n   (Connect: 0, Receive: 0, Length: 12, Exceptions: 0)", self::fixture('ab-hello.txt'));

        self::assertSame(12, (new ApacheBench())->parse($output)->errors);
    }

    public function testAbThatCouldNotConnectIsAnError(): void
    {
        $this->expectException(LoadException::class);
        $this->expectExceptionMessage('Connection refused');

        (new ApacheBench())->parse(self::fixture('ab-refused.txt'));
    }

    public function testAbCommandKeepsAliveAndRunsForTheDuration(): void
    {
        self::assertSame(['ab', '-k', '-q', '-c', '100', '-t', '5', '-n', '100000000', '-s', '10', 'http://127.0.0.1:1/'],
            (new ApacheBench())->command('http://127.0.0.1:1/', 100, 5, 10.0));
    }

    private static function fixture(string $name): string
    {
        return (string) \file_get_contents(__DIR__ . "/fixtures/{$name}");
    }
}
