<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container;

use Petrel\Tests\Unit\Web\Container\Fixtures\AbstractService;
use Petrel\Tests\Unit\Web\Container\Fixtures\CircularA;
use Petrel\Tests\Unit\Web\Container\Fixtures\CircularB;
use Petrel\Tests\Unit\Web\Container\Fixtures\Database;
use Petrel\Tests\Unit\Web\Container\Fixtures\Logger;
use Petrel\Tests\Unit\Web\Container\Fixtures\NeedsScalar;
use Petrel\Tests\Unit\Web\Container\Fixtures\PrivateConstructor;
use Petrel\Tests\Unit\Web\Container\Fixtures\SelfRef;
use Petrel\Tests\Unit\Web\Container\Fixtures\Suit;
use Petrel\Tests\Unit\Web\Container\Fixtures\UserController;
use Petrel\Tests\Unit\Web\Container\Fixtures\UserRepository;
use Petrel\Web\Container\Container;
use Petrel\Web\Container\ContainerError;
use Petrel\Web\Container\ContainerException;
use Petrel\Web\Container\Internal\Chain;
use Petrel\Web\Container\NotFoundException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Psr\Container\ContainerExceptionInterface;
use Psr\Container\NotFoundExceptionInterface;

#[CoversClass(Container::class)]
#[CoversClass(Chain::class)]
#[CoversClass(ContainerException::class)]
#[CoversClass(NotFoundException::class)]
final class ContainerErrorsTest extends TestCase
{
    /** @return iterable<string, array{string, string}> */
    public static function unknownIds(): iterable
    {
        yield 'string id' => ['db.url', 'Cannot resolve db.url: no entry or class named "db.url"'];
        yield 'interface' => [Logger::class, 'Cannot resolve ' . Logger::class . ': no binding for interface ' . Logger::class];
        yield 'abstract' => [AbstractService::class, 'no binding for abstract class ' . AbstractService::class];
        yield 'enum' => [Suit::class, Suit::class . ' is an enum'];
        yield 'private constructor' => [PrivateConstructor::class, 'has a non-public constructor'];
    }

    #[DataProvider('unknownIds')]
    public function testUnknownEntryIsNotFound(string $id, string $message): void
    {
        $container = new Container();
        self::assertFalse($container->has($id));
        try {
            $container->get($id);
            self::fail('Expected NotFoundException');
        } catch (NotFoundException $e) {
            self::assertInstanceOf(NotFoundExceptionInterface::class, $e);
            self::assertInstanceOf(ContainerExceptionInterface::class, $e);
            self::assertStringContainsString($message, $e->getMessage());
        }
    }

    public function testMissingDependencyNamesTheChain(): void
    {
        $container = new Container();
        self::assertTrue($container->has(UserController::class));
        try {
            $container->get(UserController::class);
            self::fail('Expected ContainerException');
        } catch (ContainerException $e) {
            self::assertNotInstanceOf(NotFoundExceptionInterface::class, $e, 'the entry exists; a dependency does not');
            self::assertSame(
                'Cannot resolve ' . UserController::class . ' → ' . UserRepository::class . ' → ' . Database::class
                . ': no binding for interface ' . Logger::class . ' (parameter $logger of ' . Database::class . '::__construct())',
                $e->getMessage(),
            );
        }
    }

    public function testMissingDependencyOfAFactoryIsAContainerException(): void
    {
        $container = new Container();
        $container->singleton('mailer', static fn (Container $c): mixed => $c->get('smtp.host'));
        try {
            $container->get('mailer');
            self::fail('Expected ContainerException');
        } catch (ContainerException $e) {
            self::assertNotInstanceOf(NotFoundExceptionInterface::class, $e);
            self::assertInstanceOf(NotFoundException::class, $e->getPrevious());
            self::assertSame('Cannot resolve mailer → smtp.host: no entry or class named "smtp.host"', $e->getMessage());
        }
    }

    public function testScalarWithoutDefault(): void
    {
        $this->expectException(ContainerException::class);
        $this->expectExceptionMessage('nothing to pass for string $name; give it a default, or register the class with a factory (parameter $name of ' . NeedsScalar::class . '::__construct())');
        (new Container())->get(NeedsScalar::class);
    }

    public function testCircularAutowiring(): void
    {
        $this->expectException(ContainerException::class);
        $this->expectExceptionMessage('Circular dependency: ' . CircularA::class . ' → ' . CircularB::class . ' → ' . CircularA::class);
        (new Container())->get(CircularA::class);
    }

    public function testSelfReference(): void
    {
        $this->expectExceptionMessage('Circular dependency: ' . SelfRef::class . ' → ' . SelfRef::class);
        (new Container())->get(SelfRef::class);
    }

    public function testCircularFactoriesAndAliases(): void
    {
        $container = new Container();
        $container->singleton('a', static fn (Container $c): mixed => $c->get('b'));
        $container->factory('b', static fn (Container $c): mixed => $c->get('a'));
        try {
            $container->get('a');
            self::fail('Expected ContainerException');
        } catch (ContainerException $e) {
            self::assertSame('Circular dependency: a → b → a', $e->getMessage());
        }

        $container->alias('x', 'y');
        $container->alias('y', 'x');
        $this->expectExceptionMessage('Circular dependency: x → y → x');
        $container->get('x');
    }

    public function testAFailedBuildCanBeRetried(): void
    {
        $container = new Container();
        $attempts = 0;
        $container->singleton('flaky', static function () use (&$attempts): string {
            if (++$attempts === 1) {
                throw new \RuntimeException('database down');
            }

            return 'ok';
        });
        try {
            $container->get('flaky');
            self::fail('Expected the factory exception');
        } catch (\RuntimeException $e) {
            self::assertSame('database down', $e->getMessage(), 'factory exceptions propagate unchanged');
            self::assertNotInstanceOf(ContainerExceptionInterface::class, $e);
        }
        self::assertSame('ok', $container->get('flaky'));
    }

    public function testRegistrationMisuse(): void
    {
        $container = new Container();
        try {
            $container->singleton(Logger::class);
            self::fail('Expected ContainerError');
        } catch (ContainerError $e) {
            self::assertSame('singleton("' . Logger::class . '") needs a factory: no binding for interface ' . Logger::class, $e->getMessage());
        }
        try {
            $container->scoped('current.user');
            self::fail('Expected ContainerError');
        } catch (ContainerError $e) {
            self::assertStringStartsWith('scoped("current.user") needs a factory', $e->getMessage());
        }
        $this->expectException(ContainerError::class);
        $container->alias('a', 'a');
    }

    public function testMakeNeedsAConcreteClass(): void
    {
        $this->expectException(ContainerException::class);
        $this->expectExceptionMessage('Cannot make ' . Logger::class . ': no binding for interface ' . Logger::class);
        (new Container())->make(Logger::class);
    }
}
