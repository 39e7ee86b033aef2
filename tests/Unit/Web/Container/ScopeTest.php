<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container;

use Petrel\Coroutine\Context;
use Petrel\Http\Request;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Unit\Web\Container\Fixtures\Logger;
use Petrel\Tests\Unit\Web\Container\Fixtures\Mailer;
use Petrel\Tests\Unit\Web\Container\Fixtures\MemoryLogger;
use Petrel\Tests\Unit\Web\Container\Fixtures\NeedsRequest;
use Petrel\Tests\Unit\Web\Container\Fixtures\RequestState;
use Petrel\Web\Container\Container;
use Petrel\Web\Container\ContainerException;
use Petrel\Web\Container\Internal\BuildGate;
use Petrel\Web\Container\Scope;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;

#[CoversClass(Scope::class)]
#[CoversClass(Container::class)]
#[CoversClass(BuildGate::class)]
final class ScopeTest extends AsyncTestCase
{
    public function testScopedIsOnePerScope(): void
    {
        $container = new Container();
        $container->scoped(RequestState::class);

        [$a1, $a2] = $container->runInScope(static fn (): array => [$container->get(RequestState::class), $container->get(RequestState::class)]);
        $b = $container->runInScope(static fn (): mixed => $container->get(RequestState::class));
        self::assertSame($a1, $a2);
        self::assertNotSame($a1, $b);
        self::assertNull(Scope::current(), 'runInScope() restores the previous (no) scope');
    }

    public function testScopedOutsideAScopeFails(): void
    {
        $container = new Container();
        $container->scoped(RequestState::class);
        $this->expectException(ContainerException::class);
        $this->expectExceptionMessage('Cannot resolve ' . RequestState::class . ': ' . RequestState::class
            . ' is request-scoped; resolve it while handling a request (or inside Container::runInScope())');
        $container->get(RequestState::class);
    }

    public function testSingletonDependingOnScopedIsCaptive(): void
    {
        $container = new Container();
        $container->scoped(RequestState::class);
        $container->singleton(Mailer::class);
        $this->expectException(ContainerException::class);
        $this->expectExceptionMessage('Cannot resolve ' . Mailer::class . ' → ' . RequestState::class . ': captive dependency: singleton '
            . Mailer::class . ' would keep the request-scoped ' . RequestState::class . ' of one request forever');
        $container->runInScope(static fn (): mixed => $container->get(Mailer::class));
    }

    public function testCaptiveThroughAFactoryAndATransient(): void
    {
        $container = new Container();
        $container->scoped('state', static fn (): RequestState => new RequestState());
        $container->factory('transient', static fn (Container $c): mixed => $c->get('state'));
        $container->singleton('service', static fn (Container $c): mixed => $c->get('transient'));
        $this->expectExceptionMessage('Cannot resolve service → transient → state: captive dependency: singleton service');
        $container->runInScope(static fn (): mixed => $container->get('service'));
    }

    public function testScopedAndTransientMayUseScoped(): void
    {
        $container = new Container();
        $container->scoped(RequestState::class);
        $container->scoped('mailer', static fn (Container $c): Mailer => $c->make(Mailer::class));
        $container->runInScope(static function () use ($container): void {
            $state = $container->get(RequestState::class);
            self::assertSame($state, $container->get(Mailer::class)->state, 'autowired (transient) Mailer');
            $mailer = $container->get('mailer');
            self::assertInstanceOf(Mailer::class, $mailer);
            self::assertSame($state, $mailer->state);
        });
    }

    public function testScopeValuesAreInjectable(): void
    {
        $container = new Container();
        $request = Request::create('GET', '/users/1');
        $seen = $container->runInScope(static function (Scope $scope) use ($container, $request): Request {
            $scope->set(Request::class, $request);
            $scope->set('request.id', 'abc');
            self::assertTrue($container->has('request.id'));
            self::assertSame('abc', $container->get('request.id'));

            return $container->get(NeedsRequest::class)->request;
        });
        self::assertSame($request, $seen);
        self::assertFalse($container->has('request.id'));

        $container->singleton(NeedsRequest::class);
        $this->expectExceptionMessage('captive dependency: singleton ' . NeedsRequest::class . ' would keep the request-scoped ' . Request::class);
        $container->runInScope(static function (Scope $scope) use ($container, $request): void {
            $scope->set(Request::class, $request);
            $container->get(NeedsRequest::class);
        });
    }

    public function testCloseRunsDisposeHooksLastFirstAndDropsInstances(): void
    {
        $container = new Container();
        $log = [];
        $container->scoped('first', static fn (): string => 'first', static function (string $value) use (&$log): void {
            $log[] = "dispose {$value}";
        });
        $container->scoped('second', static fn (Container $c): string => $c->get('first') . '+second', static function (string $value) use (&$log): void {
            $log[] = "dispose {$value}";
        });
        $scope = $container->runInScope(static function (Scope $scope) use ($container, &$log): Scope {
            self::assertSame('first+second', $container->get('second'));
            $scope->onClose(static function () use (&$log): void {
                $log[] = 'hook';
            });

            return $scope;
        });
        self::assertSame(['hook', 'dispose first+second', 'dispose first'], $log);
        self::assertTrue($scope->isClosed());
        self::assertFalse($scope->has('first'));
        $scope->close(); // idempotent
        self::assertCount(3, $log);
    }

    public function testCloseRunsEveryHookThenRethrowsTheFirstFailure(): void
    {
        $scope = new Scope();
        $ran = [];
        $scope->onClose(static function () use (&$ran): void {
            $ran[] = 'a';
        });
        $scope->onClose(static function () use (&$ran): void {
            $ran[] = 'b';
            throw new \RuntimeException('b failed');
        });
        $scope->onClose(static function () use (&$ran): void {
            $ran[] = 'c';
            throw new \RuntimeException('c failed');
        });
        try {
            $scope->close();
            self::fail('Expected the hook failure');
        } catch (\RuntimeException $e) {
            self::assertSame('c failed', $e->getMessage());
        }
        self::assertSame(['c', 'b', 'a'], $ran);
    }

    public function testHooksSeeTheInstancesAndAScopeWithoutHooksDropsThemToo(): void
    {
        $scope = new Scope();
        $scope->set('session', 'data');
        $seen = null;
        $scope->onClose(static function () use ($scope, &$seen): void {
            $seen = $scope->get('session');
        });
        $scope->close();
        self::assertSame('data', $seen);
        self::assertFalse($scope->has('session'));

        $plain = new Scope();
        $plain->set('request', 'r');
        $plain->close();
        self::assertTrue($plain->isClosed());
        self::assertFalse($plain->has('request'));
    }

    public function testClosedScopeRefusesNewEntries(): void
    {
        $scope = new Scope();
        $scope->set('a', 1);
        self::assertSame(1, $scope->get('a'));
        $scope->close();
        $this->expectException(ContainerException::class);
        $this->expectExceptionMessage('Cannot add "b" to a closed request scope');
        $scope->set('b', 2);
    }

    public function testSingletonIsSharedAcrossCoroutines(): void
    {
        $this->async(static function (): void {
            $container = new Container();
            $container->singleton(MemoryLogger::class);
            $first = go(static fn (): mixed => $container->get(MemoryLogger::class));
            $second = go(static fn (): mixed => $container->get(MemoryLogger::class));
            self::assertSame($first->join(), $second->join());
            self::assertSame($first->join(), $container->get(MemoryLogger::class));
        });
    }

    public function testASuspendingSingletonFactoryRunsOnce(): void
    {
        $this->async(static function (): void {
            $container = new Container();
            $built = 0;
            $container->singleton(Logger::class, static function () use (&$built): Logger {
                $built++;
                sleep(0.02); // connecting a pool, say

                return new MemoryLogger();
            });
            $coroutines = [];
            for ($i = 0; $i < 3; $i++) {
                $coroutines[] = go(static fn (): mixed => $container->get(Logger::class));
            }
            $results = \array_map(static fn ($c): mixed => $c->join(), $coroutines);
            self::assertSame(1, $built);
            self::assertSame($results[0], $results[1]);
            self::assertSame($results[0], $results[2]);
        });
    }

    public function testConcurrentRequestsGetTheirOwnScopedInstances(): void
    {
        $this->async(static function (): void {
            $container = new Container();
            $container->scoped(RequestState::class);
            $request = static function () use ($container): array {
                $scope = new Scope();
                Context::set(Scope::CONTEXT_KEY, $scope); // what the App does per request
                try {
                    $before = $container->get(RequestState::class);
                    sleep(0.01); // the other request runs meanwhile
                    $child = go(static fn (): mixed => $container->get(RequestState::class))->join();

                    return [$before, $container->get(RequestState::class), $child];
                } finally {
                    $scope->close();
                    Context::delete(Scope::CONTEXT_KEY);
                }
            };
            [$a, $b] = [go($request), go($request)];
            [$a1, $a2, $aChild] = $a->join();
            [$b1, $b2, $bChild] = $b->join();
            self::assertSame($a1, $a2);
            self::assertSame($a1, $aChild, 'a coroutine spawned by the request shares its scope');
            self::assertSame($b1, $b2);
            self::assertSame($b1, $bChild);
            self::assertNotSame($a1, $b1);
            self::assertNull(Scope::current());
        });
    }

    public function testASuspendingScopedFactoryRunsOncePerScope(): void
    {
        $this->async(static function (): void {
            $container = new Container();
            $built = 0;
            $container->scoped('user', static function () use (&$built): object {
                $built++;
                sleep(0.01); // loading the user from a session store

                return new \stdClass();
            });
            $container->runInScope(static function () use ($container): void {
                $one = go(static fn (): mixed => $container->get('user'));
                $two = go(static fn (): mixed => $container->get('user'));
                self::assertSame($one->join(), $two->join());
            });
            self::assertSame(1, $built);
        });
    }

    public function testResolutionChainsArePerCoroutine(): void
    {
        $this->async(static function (): void {
            $container = new Container();
            $container->scoped(RequestState::class);
            $container->singleton('slow', static function (): string {
                sleep(0.02);

                return 'slow';
            });
            // While one coroutine is inside the singleton's factory, another resolves a scoped
            // service: that is not captive, because the chains belong to different coroutines.
            $slow = go(static fn (): mixed => $container->get('slow'));
            $scoped = go(static fn (): mixed => $container->runInScope(static fn (): mixed => $container->get(RequestState::class)));
            self::assertSame('slow', $slow->join());
            self::assertInstanceOf(RequestState::class, $scoped->join());
        });
    }

    public function testACoroutineOutlivingItsRequestCannotResolveScoped(): void
    {
        $this->async(static function (): void {
            $container = new Container();
            $container->scoped(RequestState::class);
            $late = $container->runInScope(static fn (): mixed => go(static function () use ($container): mixed {
                sleep(0.01);

                return $container->get(RequestState::class);
            }));
            $error = null;
            try {
                $late->join();
            } catch (\Throwable $e) {
                $error = $e;
            }
            self::assertInstanceOf(ContainerException::class, $error);
            self::assertStringContainsString('is request-scoped and its request has ended', $error->getMessage());
        });
    }
}
