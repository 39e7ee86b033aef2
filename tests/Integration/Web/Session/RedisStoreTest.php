<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Session;

use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Pool\PoolConfig;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Tests\Support\RequiresServices;
use Petrel\Tests\Unit\Web\Session\SessionStoreTestCase;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\RedisStore;
use Petrel\Web\Session\Session;
use Petrel\Web\Session\SessionMiddleware;
use Petrel\Web\Session\SessionStore;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\run;
use function Petrel\sleep;

/**
 * RedisStore against the server in $REDIS_URL (database 15, keys under a prefix unique to
 * each test, deleted afterwards). Skipped without REDIS_URL unless PETREL_REQUIRE_SERVICES=1.
 */
#[CoversClass(RedisStore::class)]
final class RedisStoreTest extends SessionStoreTestCase
{
    use RequiresServices;

    private const DATABASE = 15;

    private static ?string $unavailable = null;

    private string $prefix = '';

    protected function setUp(): void
    {
        parent::setUp();
        self::$unavailable ??= self::probe();
        if (self::$unavailable !== '') {
            self::skipUnlessRequired('Redis is not available (set REDIS_URL, e.g. redis://127.0.0.1:6379/0): ' . self::$unavailable);
        }
        $this->prefix = 'petrel-test:session:' . \bin2hex(\random_bytes(6)) . ':';
    }

    protected function tearDown(): void
    {
        if ($this->prefix !== '') {
            run(function (): void {
                $redis = RedisConnection::connect(self::config());
                try {
                    $keys = $redis->keys($this->prefix . '*');
                    if ($keys !== []) {
                        $redis->del(...$keys);
                    }
                } finally {
                    $redis->close();
                }
            });
        }
        parent::tearDown();
    }

    protected function createStore(): SessionStore
    {
        return RedisStore::fromConfig(self::config(), $this->prefix, new PoolConfig(max: 4));
    }

    protected function disposeStore(SessionStore $store): void
    {
        \assert($store instanceof RedisStore);
        $store->pool()->close();
    }

    protected function elapse(SessionStore $store, int $seconds): void
    {
        sleep($seconds + 0.1); // Redis keeps real time; an expired key reads as missing at once
    }

    public function testSessionsAreJsonStringsUnderThePrefixWithTheTtl(): void
    {
        $this->withStore(function (SessionStore $store): void {
            $id = SessionId::generate();
            $store->write($id, ['data' => ['name' => 'Zoë', 'n' => 1.0], 'flash' => [], 'at' => 5], 300);

            $redis = RedisConnection::connect(self::config());
            try {
                self::assertSame('{"data":{"name":"Zoë","n":1.0},"flash":[],"at":5}', $redis->get($this->prefix . $id));
                $ttl = $redis->ttl($this->prefix . $id);
                self::assertGreaterThan(290, $ttl);
                self::assertLessThanOrEqual(300, $ttl);
                $store->destroy($id);
                self::assertSame(0, $redis->exists($this->prefix . $id));
            } finally {
                $redis->close();
            }
        });
    }

    public function testValuesThatAreNotJsonObjectsReadAsNoSession(): void
    {
        $this->withStore(function (SessionStore $store): void {
            $redis = RedisConnection::connect(self::config());
            try {
                $payloads = [
                    'php-serialized object' => 'O:8:"stdClass":1:{s:1:"a";i:1;}',
                    'truncated json' => '{"data":{"a":1}',
                    'json string' => '"text"',
                    'json number' => '42',
                    'empty' => '',
                ];
                foreach ($payloads as $what => $payload) {
                    $id = SessionId::generate();
                    $redis->set($this->prefix . $id, $payload, ttl: 60);
                    self::assertNull($store->read($id), $what);
                }
            } finally {
                $redis->close();
            }
        });
    }

    public function testConnectionsGoBackToThePool(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            \assert($store instanceof RedisStore);
            for ($i = 0; $i < 5; $i++) {
                $id = SessionId::generate();
                $store->write($id, ['i' => $i], 60);
                $store->read($id);
                $store->destroy($id);
            }
            $stats = $store->pool()->stats();
            self::assertSame(1, $stats['size'], 'one connection served every sequential call');
            self::assertSame(0, $stats['busy']);
        });
    }

    public function testSessionMiddlewareRoundTripWithRedis(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            $middleware = new SessionMiddleware($store);
            $first = $middleware->process(Request::create('POST', '/login'), new ClosureHandler(static function (Request $request): Response {
                $session = Session::from($request);
                $session->set('user', 12);
                $session->flash('notice', 'Welcome');

                return Response::redirect('/');
            }));
            $cookie = $first->getCookies()[0] ?? null;
            self::assertNotNull($cookie);

            $second = $middleware->process(
                Request::create('GET', '/', ['Cookie' => "petrel_session={$cookie->value}"]),
                new ClosureHandler(static fn (Request $request): Response => Response::text(
                    Session::from($request)->get('user') . ' ' . Session::from($request)->getFlash('notice'),
                )),
            );
            self::assertSame('12 Welcome', $second->getBody());
        });
    }

    public function testUpdatesWorkAfterTheServerForgetsItsScripts(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            \assert($store instanceof RedisStore);
            $id = SessionId::generate();
            $redis = RedisConnection::connect(self::config());
            try {
                for ($i = 1; $i <= 3; $i++) { // a restart or SCRIPT FLUSH between saves: NOSCRIPT, then the text
                    $redis->command('SCRIPT', 'FLUSH');
                    $store->update($id, static fn (?array $stored): array => ['n' => ($stored['n'] ?? 0) + 1], 60);
                    $store->update($id, static fn (?array $stored): array => ['n' => ($stored['n'] ?? 0) + 1], 60);
                }
            } finally {
                $redis->close();
            }
            self::assertSame(['n' => 6], $store->read($id));
        });
    }

    public function testAnUpdateGivesUpWhenTheSessionChangesDuringEachAttempt(): void
    {
        $this->withStore(function (SessionStore $store): void {
            \assert($store instanceof RedisStore);
            $id = SessionId::generate();
            $other = RedisConnection::connect(self::config());
            $attempts = 0;
            try {
                // Another client writes the session between each read and write of the save.
                $store->update($id, function (?array $stored) use ($other, $id, &$attempts): array {
                    $other->set($this->prefix . $id, '{"n":' . ++$attempts . '}', ttl: 60);

                    return ['mine' => true];
                }, 60);
                self::fail('a save that never finds the session unchanged must give up');
            } catch (\RuntimeException $e) {
                self::assertSame(RedisStore::UPDATE_ATTEMPTS, $attempts);
                self::assertStringContainsString('changed in Redis during each of ' . RedisStore::UPDATE_ATTEMPTS . ' attempts', $e->getMessage());
                self::assertStringNotContainsString($id, $e->getMessage(), 'the id is a secret');
            } finally {
                $other->close();
            }
            self::assertSame(['n' => RedisStore::UPDATE_ATTEMPTS], $store->read($id), 'nothing of the failed save was written');
        });
    }

    public function testConcurrentSavesOfOneSessionKeepEveryKey(): void
    {
        $this->withStore(static function (SessionStore $store): void {
            $id = SessionId::generate();
            $store->write($id, ['data' => ['user' => 12], 'flash' => [], 'at' => 0], 60);
            $requests = [];
            for ($i = 0; $i < 10; $i++) { // ten parallel fetch() calls of one page, each loads the session
                $requests[$i] = new Session($store, $id);
                self::assertSame(12, $requests[$i]->get('user'));
                $requests[$i]->set("widget{$i}", $i);
            }
            $saves = [];
            foreach ($requests as $i => $session) { // and saves it at the same moment: reads and writes interleave
                $saves[] = go(static fn (): ?string => $session->save());
            }
            foreach ($saves as $save) {
                self::assertSame($id, $save->join());
            }

            $data = $store->read($id)['data'] ?? [];
            \ksort($data);
            self::assertSame(['user' => 12, 'widget0' => 0, 'widget1' => 1, 'widget2' => 2, 'widget3' => 3, 'widget4' => 4,
                'widget5' => 5, 'widget6' => 6, 'widget7' => 7, 'widget8' => 8, 'widget9' => 9], $data);
        });
    }

    private static function config(): RedisConfig
    {
        return RedisConfig::fromEnv()->withDatabase(self::DATABASE);
    }

    private static function probe(): string
    {
        return self::probeService('REDIS_URL', static function (): void {
            $redis = RedisConnection::connect(self::config()->withConnectTimeout(2.0));
            $redis->ping();
            $redis->close();
        });
    }
}
