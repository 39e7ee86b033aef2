<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Task;

use Petrel\Task\InlineTaskRunner;
use Petrel\Task\Internal\RemoteThrowable;
use Petrel\Task\Internal\TaskCodec;
use Petrel\Task\TaskError;
use Petrel\Task\TaskException;
use Petrel\Task\Tasks;
use Petrel\Tests\Integration\Task\Fixture\TestTask;
use PHPUnit\Framework\TestCase;

final class TaskCodecTest extends TestCase
{
    public function testARequestRoundTripsThroughAFrame(): void
    {
        $frame = TaskCodec::encodeRequest(TestTask::class, ['echo', 'arg' => 3], 1234.5);
        self::assertSame(\strlen($frame) - 4, TaskCodec::frameLength(\substr($frame, 0, 4)));
        $request = TaskCodec::decodeRequest(\substr($frame, 4));
        self::assertSame(TestTask::class, $request->task);
        self::assertSame(['echo', 'arg' => 3], $request->args);
        self::assertSame(1234.5, $request->deadline);
    }

    public function testRepliesRoundTrip(): void
    {
        foreach ([[TaskCodec::RESULT, ['a' => 1]], [TaskCodec::RESULT, false], [TaskCodec::RESULT, null], [TaskCodec::STARTED, 42], [TaskCodec::DIED, 'why']] as [$kind, $data]) {
            $frame = TaskCodec::encodeReply($kind, $data);
            self::assertSame(\strlen($frame) - 4, TaskCodec::frameLength(\substr($frame, 0, 4)));
            self::assertSame([$kind, $data], TaskCodec::decodeReply(\substr($frame, 4)));
        }
    }

    public function testClosuresInArgumentsAreRefusedWithAClearError(): void
    {
        $this->expectException(TaskError::class);
        $this->expectExceptionMessageMatches('/closures and resources cannot cross processes/');
        TaskCodec::encodeRequest('strlen', [['nested' => static fn () => 1]], 1.0);
    }

    public function testResourcesInArgumentsAreRefused(): void
    {
        $this->expectException(TaskError::class);
        $this->expectExceptionMessageMatches("/argument \\[0\\]\\['file'\\] is a resource/");
        TaskCodec::encodeRequest('strlen', [['file' => \STDERR]], 1.0);
    }

    public function testAResultThatCannotBeSerializedIsATaskException(): void
    {
        $this->expectException(TaskException::class);
        $this->expectExceptionMessageMatches('/cannot be sent back/');
        TaskCodec::encodeReply(TaskCodec::RESULT, static fn () => 1);
    }

    /** serialize() writes a resource as the integer 0: the caller got 0 for a resource, silently. */
    public function testAResultHoldingAResourceIsATaskException(): void
    {
        $file = \fopen('php://memory', 'r');
        foreach ([[$file, "The task's result is a resource;"], [['rows' => [1, $file]], "The task's result holds a resource at ['rows'][1];"]] as [$result, $message]) {
            try {
                TaskCodec::encodeReply(TaskCodec::RESULT, $result);
                self::fail('a resource in a result must not be sent');
            } catch (TaskException $error) {
                self::assertStringStartsWith($message, $error->getMessage());
            }
        }
    }

    /** Within objects too: serialize() writes a resource property as 0, silently. */
    public function testAResourceInAnObjectsPropertiesIsFound(): void
    {
        $file = \fopen('php://memory', 'r');
        $row = new class ($file) {
            public function __construct(private mixed $handle)
            {
            }
        };
        $public = new \stdClass();
        $public->file = $file;
        foreach ([[$public, 'holds a resource at ->file;'], [['rows' => [$row]], "holds a resource at ['rows'][0]->handle;"]] as [$result, $message]) {
            try {
                TaskCodec::encodeReply(TaskCodec::RESULT, $result);
                self::fail('a resource in an object must not be sent');
            } catch (TaskException $error) {
                self::assertStringStartsWith("The task's result {$message}", $error->getMessage());
            }
        }
        try {
            TaskCodec::encodeRequest('strlen', [$public], 1.0);
            self::fail('a resource in an argument object must be refused');
        } catch (TaskError $error) {
            self::assertStringContainsString('argument [0]->file is a resource', $error->getMessage());
        }
    }

    /** A class that says what it serializes (a resource it leaves out), and a cycle, are sent. */
    public function testObjectsThatChooseTheirFieldsAndCyclesAreSent(): void
    {
        $chooser = new SerializesWithoutItsHandle();
        $a = new \stdClass();
        $b = new \stdClass();
        $a->next = $b;
        $b->next = $a;
        $frame = TaskCodec::encodeReply(TaskCodec::RESULT, [$chooser, $a]);
        $decoded = TaskCodec::decodeReply(\substr($frame, 4))[1];
        self::assertIsArray($decoded);
        self::assertInstanceOf(SerializesWithoutItsHandle::class, $decoded[0]);
        self::assertSame($decoded[1], $decoded[1]->next->next);
    }

    /** An object of a class this process loads, holding one it cannot: a property was incomplete. */
    public function testAnUnknownClassInAKnownObjectsPropertyIsFound(): void
    {
        $payload = 'a:2:{i:0;s:1:"r";i:1;O:8:"stdClass":1:{s:5:"inner";O:13:"App\\OnlyThere":0:{}}}';
        $this->expectException(TaskException::class);
        $this->expectExceptionMessage("The task's result holds an object at ->inner of class App\\OnlyThere,");
        TaskCodec::decodeReply($payload);
    }

    /** A class only the task worker loads arrived as a __PHP_Incomplete_Class, silently. */
    public function testAResultOfAClassUnknownHereIsATaskExceptionNamingIt(): void
    {
        foreach (['O:13:"App\\OnlyThere":1:{s:1:"a";i:1;}' => "is an object of class App\\OnlyThere,", 'a:1:{s:4:"list";a:1:{i:0;O:13:"App\\OnlyThere":0:{}}}' => "holds an object at ['list'][0] of class App\\OnlyThere,"] as $result => $message) {
            $payload = 'a:2:{i:0;s:1:"r";i:1;' . $result . '}';
            try {
                TaskCodec::decodeReply($payload);
                self::fail('an incomplete object must not be returned');
            } catch (TaskException $error) {
                self::assertStringStartsWith("The task's result {$message}", $error->getMessage());
            }
        }
    }

    /** The exception and its serialized form past the frame limit killed the task worker. */
    public function testAnExceptionTooLargeToSendWholeIsCut(): void
    {
        $captured = RemoteThrowable::capture(new \RuntimeException(\str_repeat('e', 35_000_000)));
        $frame = TaskCodec::encodeReply(TaskCodec::THROWN, $captured);
        self::assertLessThan(200_000, \strlen($frame));
        $error = RemoteThrowable::rebuild(TaskCodec::decodeReply(\substr($frame, 4))[1], 'task T');
        self::assertInstanceOf(TaskException::class, $error);
        self::assertStringStartsWith('RuntimeException: eeee', $error->getMessage());
        self::assertStringContainsString('… (35000000 bytes in all)', $error->getMessage());
    }

    public function testBadFramesAreRejected(): void
    {
        foreach (['abc', \pack('N', TaskCodec::MAX_FRAME_BYTES + 1)] as $header) {
            try {
                TaskCodec::frameLength($header);
                self::fail('accepted a bad header');
            } catch (TaskException) {
            }
        }
        foreach (['garbage', \serialize(['?', 1]), \serialize('string')] as $payload) {
            try {
                TaskCodec::decodeReply($payload);
                self::fail("accepted the reply {$payload}");
            } catch (TaskException) {
            }
        }
        $this->expectException(TaskException::class);
        TaskCodec::decodeRequest(\serialize(['task', 'not an array', 1.0]));
    }

    public function testAKnownExceptionIsRebuiltWithItsClassMessageCodeAndTrace(): void
    {
        try {
            (new TestTask())('throw');
        } catch (\DomainException $thrown) {
        }
        $data = RemoteThrowable::capture($thrown);
        $rebuilt = RemoteThrowable::rebuild(\unserialize(\serialize($data)), 'task X');
        self::assertInstanceOf(\DomainException::class, $rebuilt);
        self::assertSame('bad input on purpose', $rebuilt->getMessage());
        self::assertSame(42, $rebuilt->getCode());
        self::assertStringContainsString('TestTask.php', $rebuilt->getFile());
        self::assertStringContainsString('TestTask->__invoke', $rebuilt->getTraceAsString());
    }

    public function testAnExceptionThatCannotBeRebuiltBecomesATaskExceptionNamingItsClass(): void
    {
        try {
            (new TestTask())('throw-anonymous');
        } catch (\RuntimeException $thrown) {
        }
        $rebuilt = RemoteThrowable::rebuild(RemoteThrowable::capture($thrown), 'task X in task worker pid 1');
        self::assertInstanceOf(TaskException::class, $rebuilt);
        self::assertStringStartsWith('RuntimeException@anonymous', (string) $rebuilt->originalClass);
        self::assertStringContainsString('from an anonymous class (thrown by task X in task worker pid 1 at ', $rebuilt->getMessage());
        self::assertSame(7, $rebuilt->getCode());
        self::assertStringContainsString('TestTask->__invoke', (string) $rebuilt->remoteTrace);
    }

    public function testInlineRunnerReusesOneInstancePerClassAndChecksLikeTheWorkers(): void
    {
        $runner = new InlineTaskRunner();
        self::assertSame(1, $runner->run(TestTask::class, ['echo', 5])['calls']);
        self::assertSame(2, $runner->run(TestTask::class, ['echo'])['calls']);
        self::assertSame('ABC', $runner->run('strtoupper', ['abc']));
        self::assertSame(3, $runner->run(TestTask::class, ['action' => 'echo', 'arg' => 3])['arg']);
        try {
            $runner->run(TestTask::class, ['closure']);
            self::fail('a closure result crossed');
        } catch (TaskException $e) {
            self::assertStringContainsString('cannot be sent back', $e->getMessage());
        }
        $this->expectException(TaskError::class);
        $this->expectExceptionMessageMatches('/neither an autoloadable invokable class nor a function/');
        $runner->run('No\\Such\\Task');
    }

    public function testWithoutTaskWorkersTheErrorSaysHowToEnableThem(): void
    {
        Tasks::setRunner(null);
        try {
            $this->expectException(TaskError::class);
            $this->expectExceptionMessageMatches('/--task-workers=N.*Tasks::inline\(\)/');
            \Petrel\task('strlen', ['x']);
        } finally {
            Tasks::setRunner(null);
        }
    }
}

/** Keeps a handle it does not send: __sleep() names the fields that travel. */
final class SerializesWithoutItsHandle
{
    public string $name = 'log';
    /** @var resource|null */
    public $handle;

    public function __construct()
    {
        $this->handle = \STDERR;
    }

    /** @return list<string> */
    public function __sleep(): array
    {
        return ['name'];
    }
}
