<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container;

use Petrel\Tests\Unit\Web\Container\Fixtures\Clock;
use Petrel\Tests\Unit\Web\Container\Fixtures\Database;
use Petrel\Tests\Unit\Web\Container\Fixtures\Logger;
use Petrel\Tests\Unit\Web\Container\Fixtures\MemoryLogger;
use Petrel\Tests\Unit\Web\Container\Fixtures\NeedsScalar;
use Petrel\Tests\Unit\Web\Container\Fixtures\SystemClock;
use Petrel\Tests\Unit\Web\Container\Fixtures\UserController;
use Petrel\Tests\Unit\Web\Container\Fixtures\UserRepository;
use Petrel\Tests\Unit\Web\Container\Fixtures\WithOptionals;
use Petrel\Web\Container\Container;
use Petrel\Web\Container\Internal\Autowirer;
use Petrel\Web\Container\Internal\InstanceBuilder;
use Petrel\Web\Container\Internal\Parameter;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Psr\Container\ContainerInterface;

#[CoversClass(Container::class)]
#[CoversClass(Autowirer::class)]
#[CoversClass(InstanceBuilder::class)]
#[CoversClass(Parameter::class)]
final class ContainerTest extends TestCase
{
    public function testSetReturnsTheValue(): void
    {
        $container = new Container();
        $logger = new MemoryLogger();
        $container->set(Logger::class, $logger);
        $container->set('config.name', 'petrel');
        $container->set('nothing', null);

        self::assertSame($logger, $container->get(Logger::class));
        self::assertSame('petrel', $container->get('config.name'));
        self::assertNull($container->get('nothing'));
        self::assertTrue($container->has('nothing'));
    }

    public function testTheContainerResolvesItself(): void
    {
        $container = new Container();
        self::assertSame($container, $container->get(ContainerInterface::class));
        self::assertSame($container, $container->get(Container::class));
    }

    public function testSingletonIsBuiltOnceOnFirstGet(): void
    {
        $container = new Container();
        $built = 0;
        $container->singleton(Logger::class, function (ContainerInterface $c) use (&$built, $container): Logger {
            self::assertSame($container, $c);
            $built++;

            return new MemoryLogger();
        });
        self::assertSame(0, $built);
        $first = $container->get(Logger::class);
        self::assertSame($first, $container->get(Logger::class));
        self::assertSame(1, $built);
    }

    public function testSingletonWithoutFactoryIsAutowired(): void
    {
        $container = new Container();
        $container->set(Logger::class, new MemoryLogger());
        $container->singleton(Database::class);
        $database = $container->get(Database::class);
        self::assertInstanceOf(Database::class, $database);
        self::assertSame($database, $container->get(Database::class));
    }

    public function testFactoryBuildsEveryTime(): void
    {
        $container = new Container();
        $container->factory(Logger::class, static fn (): Logger => new MemoryLogger());
        self::assertNotSame($container->get(Logger::class), $container->get(Logger::class));
    }

    public function testAliasFollowsTheTargetLifetime(): void
    {
        $container = new Container();
        $container->singleton(MemoryLogger::class);
        $container->alias(Logger::class, MemoryLogger::class);
        $container->alias('log', Logger::class);
        self::assertSame($container->get(MemoryLogger::class), $container->get(Logger::class));
        self::assertSame($container->get(MemoryLogger::class), $container->get('log'));

        $container->alias(Clock::class, SystemClock::class); // autowired target: transient
        self::assertInstanceOf(SystemClock::class, $container->get(Clock::class));
        self::assertNotSame($container->get(Clock::class), $container->get(Clock::class));
    }

    public function testReRegisteringReplacesTheEntry(): void
    {
        $container = new Container();
        $container->singleton(Logger::class, static fn (): Logger => new MemoryLogger());
        $old = $container->get(Logger::class);
        $new = new MemoryLogger();
        $container->set(Logger::class, $new);
        self::assertSame($new, $container->get(Logger::class));
        $container->alias(Logger::class, MemoryLogger::class);
        self::assertNotSame($new, $container->get(Logger::class));
        self::assertNotSame($old, $container->get(Logger::class));
    }

    public function testAutowiresAChainOfConstructors(): void
    {
        $container = new Container();
        $logger = new MemoryLogger();
        $container->set(Logger::class, $logger);

        $controller = $container->get(UserController::class);
        self::assertInstanceOf(UserController::class, $controller);
        self::assertSame($logger, $controller->users->database->logger);
        self::assertSame('sqlite::memory:', $controller->users->database->dsn);
        self::assertNull($controller->clock, 'an unbound interface with a default gets the default');

        $container->alias(Clock::class, SystemClock::class);
        self::assertInstanceOf(SystemClock::class, $container->get(UserController::class)->clock);
    }

    public function testAutowiredClassesAreTransient(): void
    {
        $container = new Container();
        $container->set(Logger::class, new MemoryLogger());
        $a = $container->get(UserRepository::class);
        $b = $container->get(UserRepository::class);
        self::assertNotSame($a, $b);
        self::assertNotSame($a->database, $b->database);

        $container->singleton(Database::class);
        self::assertSame($container->get(UserRepository::class)->database, $container->get(UserRepository::class)->database);
    }

    public function testNullablesAndDefaults(): void
    {
        $object = (new Container())->get(WithOptionals::class);
        self::assertInstanceOf(WithOptionals::class, $object);
        self::assertInstanceOf(SystemClock::class, $object->nullableConcrete, 'a concrete class is autowired even when nullable');
        self::assertNull($object->nullableInterface);
        self::assertNull($object->nullableScalar);
        self::assertSame(3, $object->retries);
        self::assertNull($object->defaultedClock, 'a default wins over autowiring an unregistered class');
        self::assertSame([], $object->options);
    }

    public function testRegisteredEntriesWinOverDefaults(): void
    {
        $container = new Container();
        $clock = new SystemClock();
        $container->set(SystemClock::class, $clock);
        $object = $container->get(WithOptionals::class);
        self::assertInstanceOf(WithOptionals::class, $object);
        self::assertSame($clock, $object->defaultedClock);
        self::assertSame($clock, $object->nullableConcrete);
    }

    public function testMakeTakesExplicitParameters(): void
    {
        $container = new Container();
        $container->set(Logger::class, new MemoryLogger());
        $other = new MemoryLogger();

        self::assertSame('alice', $container->make(NeedsScalar::class, ['name' => 'alice'])->name);
        self::assertSame('bob', $container->make(NeedsScalar::class, ['bob'])->name);
        self::assertSame('mysql://x', $container->make(Database::class, ['dsn' => 'mysql://x'])->dsn);
        self::assertSame($other, $container->make(Database::class, [Logger::class => $other])->logger);
        self::assertSame($other, $container->make(Database::class, ['logger' => $other, 'unused' => 1])->logger);

        $container->singleton(Database::class);
        self::assertNotSame($container->make(Database::class), $container->make(Database::class), 'make() never caches');
    }

    public function testCallInjectsParameters(): void
    {
        $container = new Container();
        $logger = new MemoryLogger();
        $container->set(Logger::class, $logger);

        $result = $container->call(static fn (Logger $log, string $id, int $page = 1): string => $log::class . " {$id} {$page}", ['id' => '42']);
        self::assertSame(MemoryLogger::class . ' 42 1', $result);

        $container->call([$logger, 'log'], ['line' => 'hello']);
        $container->call($logger->log(...), ['second']);
        $container->call($logger, ['line' => 'third']);
        self::assertSame(['hello', 'second', 'third'], $logger->lines);
        self::assertSame(5, $container->call('strlen', ['string' => 'hello']));
    }

    public function testHas(): void
    {
        $container = new Container();
        $container->singleton('db', static fn (): string => 'db');
        $container->alias('database', 'db');
        $container->alias('dangling', 'nowhere');

        self::assertTrue($container->has('db'));
        self::assertTrue($container->has('database'));
        self::assertFalse($container->has('dangling'));
        self::assertTrue($container->has(SystemClock::class), 'autowirable');
        self::assertTrue($container->has(NeedsScalar::class), 'autowirable class, even if get() will fail on a dependency');
        self::assertFalse($container->has(Logger::class));
        self::assertFalse($container->has('no.such.entry'));
    }
}
