<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use Petrel\Redis\Internal\CommandMethods;
use Petrel\Redis\Internal\PipelineSource;
use Petrel\Redis\Internal\ReplyShape;
use Petrel\Redis\Internal\RespEncoder;
use Petrel\Redis\RedisPipeline;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * RedisConnection's typed command methods (the CommandMethods trait) are written once;
 * RedisPipeline's queueing twins are generated from them (Internal\PipelineSource). This
 * checks the generated code is up to date, and that the twins behave alike: the same
 * methods with the same parameters, and for sample arguments the same command bytes and
 * the same reply conversion — so a pipeline result is what the connection's method would return.
 */
final class PipelineInStepTest extends TestCase
{
    /** @return iterable<string, array{string}> */
    public static function commandMethods(): iterable
    {
        foreach ((new \ReflectionClass(CommandMethods::class))->getMethods(\ReflectionMethod::IS_PUBLIC) as $method) {
            yield $method->getName() => [$method->getName()];
        }
    }

    public function testThePipelinesMethodsAreGeneratedFromTheCurrentCommandMethods(): void
    {
        self::assertSame(
            PipelineSource::methods(),
            PipelineSource::current(),
            'RedisPipeline.php is out of date: php -r \'require "vendor/autoload.php"; Petrel\Redis\Internal\PipelineSource::write();\'',
        );
    }

    public function testThePipelineHasExactlyTheConnectionsCommandMethods(): void
    {
        $connection = \array_map(static fn (\ReflectionMethod $m): string => $m->getName(), (new \ReflectionClass(CommandMethods::class))->getMethods(\ReflectionMethod::IS_PUBLIC));
        $pipeline = \array_map(static fn (\ReflectionMethod $m): string => $m->getName(), (new \ReflectionClass(RedisPipeline::class))->getMethods(\ReflectionMethod::IS_PUBLIC));
        $ownMethods = ['__construct', 'command', 'count', 'seal'];
        self::assertEqualsCanonicalizing($connection, \array_values(\array_diff($pipeline, $ownMethods)));
    }

    #[DataProvider('commandMethods')]
    public function testSameParametersSameCommandSameShape(string $name): void
    {
        $direct = new \ReflectionMethod(CommandMethods::class, $name);
        $queued = new \ReflectionMethod(RedisPipeline::class, $name);
        self::assertSame(self::signature($direct), self::signature($queued), "{$name}(): parameters differ");
        self::assertSame('self', (string) $queued->getReturnType(), "{$name}() on the pipeline returns the pipeline");

        foreach (self::sampleArguments($direct) as $arguments) {
            $recorder = new CommandRecorder();
            $pipeline = new RedisPipeline();
            try {
                $recorder->{$name}(...$arguments);
                self::fail("{$name}() sent nothing");
            } catch (CommandRecorded) {
                // call() was reached: the command and shape are recorded
            } catch (\ValueError $refused) {
                // Arguments the connection refuses the pipeline refuses too, saying the same.
                try {
                    $pipeline->{$name}(...$arguments);
                    self::fail("{$name}(): the connection refuses these arguments, the pipeline queues them");
                } catch (\ValueError $alsoRefused) {
                    self::assertSame($refused->getMessage(), $alsoRefused->getMessage());
                }
                continue;
            }
            $pipeline->{$name}(...$arguments);
            [$payload, $shapes] = $pipeline->seal();
            self::assertSame(RespEncoder::encode($recorder->command), $payload, "{$name}(): the same command is sent");
            self::assertSame([$recorder->shape], $shapes, "{$name}(): the reply is converted the same way");
        }
    }

    /** @return list<string> one line per parameter: type, name, variadic, default */
    private static function signature(\ReflectionMethod $method): array
    {
        return \array_map(static fn (\ReflectionParameter $p): string => \sprintf(
            '%s %s$%s = %s',
            (string) $p->getType(),
            $p->isVariadic() ? '...' : '',
            $p->getName(),
            $p->isDefaultValueAvailable() ? \var_export($p->getDefaultValue(), true) : '-',
        ), $method->getParameters());
    }

    /**
     * Argument lists that exercise the method: the required parameters only, then every
     * parameter given (a non-default value for optional ones, two values for a variadic).
     *
     * @return list<list<mixed>>
     */
    private static function sampleArguments(\ReflectionMethod $method): array
    {
        $required = $all = [];
        foreach ($method->getParameters() as $parameter) {
            $value = self::sample($parameter);
            if ($parameter->isVariadic()) {
                \array_push($all, $value, $value);
            } elseif ($parameter->isOptional()) {
                $all[] = $value;
            } else {
                $required[] = $value;
                $all[] = $value;
            }
        }

        return [$required, $all];
    }

    private static function sample(\ReflectionParameter $parameter): mixed
    {
        $type = $parameter->getType();
        $names = $type instanceof \ReflectionUnionType
            ? \array_map(static fn (\ReflectionType $t): string => $t instanceof \ReflectionNamedType ? $t->getName() : (string) $t, $type->getTypes())
            : [$type instanceof \ReflectionNamedType ? $type->getName() : 'string'];

        return match (true) {
            \in_array('array', $names, true) => ['field' => 2.5, 'other' => 7],
            $parameter->getName() === 'ttl' => 30,
            \in_array('bool', $names, true) => !($parameter->isDefaultValueAvailable() && $parameter->getDefaultValue() === true),
            \in_array('string', $names, true) => 'v-' . $parameter->getName(),
            \in_array('int', $names, true) => 3,
            \in_array('float', $names, true) => 1.5,
            default => throw new \LogicException("no sample for \${$parameter->getName()}"),
        };
    }
}

/** Thrown by CommandRecorder::call(): no reply to convert, and none is needed. */
final class CommandRecorded extends \Exception
{
}

/** The connection's command methods, recording what they would send instead of sending it. */
final class CommandRecorder
{
    use CommandMethods;

    /** @var array<string|int|float> */
    public array $command = [];
    public ReplyShape $shape = ReplyShape::Raw;

    /** @param array<string|int|float> $command */
    private function call(array $command, ReplyShape $shape = ReplyShape::Raw): mixed
    {
        $this->command = $command;
        $this->shape = $shape;

        throw new CommandRecorded();
    }
}
