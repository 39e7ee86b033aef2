<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Process;

use Petrel\Process\WorkerContext;
use PHPUnit\Framework\TestCase;

final class WorkerContextTest extends TestCase
{
    public function testAReasonThatIsNotUtf8ReachesTheMasterWithTheBadBytesReplaced(): void
    {
        $pipe = \fopen('php://memory', 'w+b');
        self::assertIsResource($pipe);
        $context = new WorkerContext(1, $pipe);

        $context->fail("APP failed to load: RuntimeException: bad config value: \xff\xfe");
        $context->dying("Allowed memory size exhausted in \xc3");
        $context->reportStatus(['pools' => ["db-\xff" => 1]]);

        \rewind($pipe);
        $lines = \explode("\n", \rtrim((string) \stream_get_contents($pipe), "\n"));
        $messages = \array_map(static fn (string $line): mixed => \json_decode($line, true, 512, \JSON_THROW_ON_ERROR), $lines);
        self::assertSame(['type' => 'error', 'message' => "APP failed to load: RuntimeException: bad config value: \u{FFFD}\u{FFFD}"], $messages[0] ?? null);
        self::assertSame(['type' => 'dying', 'reason' => "Allowed memory size exhausted in \u{FFFD}"], $messages[1] ?? null);
        self::assertSame(["db-\u{FFFD}" => 1], $messages[2]['status']['pools'] ?? null);
    }
}
