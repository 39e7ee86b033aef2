<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Database\Database;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;
use Petrel\Tests\System\fixtures\blog\BlogClient;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * examples/blog in its three run modes — `bin/petrel start` in coroutine and sync mode, and
 * classic mode behind `php -S` through public/index.php — each on a fresh SQLite database;
 * then coroutine mode on MariaDB and PostgreSQL (MYSQL_URL / PGSQL_URL) and with Redis
 * sessions shared by two workers (REDIS_URL).
 */
final class BlogTest extends AsyncTestCase
{
    private const BLOG = __DIR__ . '/../../examples/blog';

    private string $dir = '';
    /** @var list<PetrelProcess> */
    private array $servers = [];
    /** @var resource|null the `php -S` process */
    private $builtin = null;
    private ?string $builtinLog = null;

    protected function setUp(): void
    {
        parent::setUp();
        $this->dir = \sys_get_temp_dir() . '/petrel-blog-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        \mkdir($this->dir, 0777, true);
    }

    protected function tearDown(): void
    {
        foreach ($this->servers as $server) {
            $server->stop();
        }
        if ($this->builtin !== null) {
            \proc_terminate($this->builtin, \SIGTERM);
            \proc_close($this->builtin);
        }
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    /** @return array<string, array{string}> */
    public static function modes(): array
    {
        return ['coroutine' => ['coroutine'], 'sync' => ['sync'], 'classic (php -S)' => ['classic']];
    }

    #[DataProvider('modes')]
    public function testTheBlogWorksInEveryRunMode(string $mode): void
    {
        $env = ['DATABASE_URL' => "sqlite://{$this->dir}/blog.sqlite", 'BLOG_VAR_DIR' => "{$this->dir}/var", 'REDIS_URL' => null];
        $address = $mode === 'classic'
            ? $this->startBuiltinServer($env)
            : $this->startPetrel($env, ['--workers=1', "--mode={$mode}"]);

        $this->async(function () use ($address, $mode): void {
            $this->checkPages($address);
            $this->checkSignUp($address, "grace.{$mode}@example.org", multipart: $mode === 'classic');
        }, 60.0);

        if ($mode === 'classic') {
            self::assertNotSame([], \glob("{$this->dir}/var/twig/*"), 'compiled templates are cached on disk in classic mode');
            self::assertNotSame([], \glob("{$this->dir}/var/sessions/*.json"), 'sessions are files in classic mode without Redis');
        }
    }

    /** @return array<string, array{string, string, class-string}> */
    public static function servers(): array
    {
        return [
            'MariaDB' => ['MYSQL_URL', 'mysql', MysqlConnection::class],
            'PostgreSQL' => ['PGSQL_URL', 'pgsql', PgsqlConnection::class],
        ];
    }

    /** @param class-string $connectionClass */
    #[DataProvider('servers')]
    public function testCoroutineModeOnADatabaseServer(string $variable, string $driver, string $connectionClass): void
    {
        $url = self::requireService($variable, $connectionClass);
        $prefix = 'blogtest_' . \bin2hex(\random_bytes(4)) . '_';
        try {
            // Two workers create and seed the table at the same moment; sessions are files both see.
            $address = $this->startPetrel(
                ['DATABASE_URL' => $url, 'BLOG_TABLE_PREFIX' => $prefix, 'BLOG_VAR_DIR' => "{$this->dir}/var", 'REDIS_URL' => null],
                ['--workers=2', '--mode=coroutine'],
            );
            $this->async(function () use ($address, $driver): void {
                $this->checkPages($address);
                $this->checkSignUp($address, "grace.{$driver}@example.org");
            }, 60.0);
        } finally {
            $this->async(static function () use ($url, $prefix): void {
                $db = Database::fromUrl($url);
                $db->execute("DROP TABLE IF EXISTS {$prefix}users");
                $db->close();
            });
        }
    }

    public function testSessionsInRedisAreSharedByTheWorkers(): void
    {
        $redis = self::requireService('REDIS_URL', \Petrel\Redis\RedisConnection::class);
        $address = $this->startPetrel(
            ['DATABASE_URL' => "sqlite://{$this->dir}/blog.sqlite", 'BLOG_VAR_DIR' => "{$this->dir}/var", 'REDIS_URL' => $redis],
            ['--workers=2'],
        );
        $this->async(function () use ($address): void {
            // Every request on a new connection: whichever worker takes it must find the session.
            for ($i = 0; $i < 3; $i++) {
                $this->checkSignUp($address, "redis{$i}@example.org", expectedId: 61 + $i);
            }
        }, 60.0);
    }

    /**
     * The default command with no Redis: sessions (and the CSRF token in them) are files
     * every worker reads, so a form posted on a new connection, to whichever worker takes
     * it, is accepted. (With sessions in each worker's memory most of these were 403.)
     */
    public function testTheSignUpFormWorksAcrossTwoWorkersWithoutRedis(): void
    {
        $server = new PetrelProcess(self::BLOG . '/app.php', ['--workers=2']);
        $this->servers[] = $server;
        $env = ['DATABASE_URL' => "sqlite://{$this->dir}/blog.sqlite", 'BLOG_VAR_DIR' => "{$this->dir}/var", 'REDIS_URL' => null];
        self::withEnv($env, static fn () => $server->start(30.0));
        $address = $server->address;
        $signUps = fn (int $from): array => $this->async(static function () use ($address, $from): array {
            $statuses = [];
            for ($i = $from; $i < $from + 20; $i++) {
                $client = new BlogClient($address); // a new connection per request
                $form = $client->request('GET', '/users/new');
                self::assertSame(1, \preg_match('/name="_token" value="([^"]+)"/', $form->body, $m), $form->body);
                $posted = $client->post('/users', ['_token' => $m[1] ?? '', 'name' => "Worker Test {$i}", 'email' => "w{$i}@example.org"]);
                $statuses[] = $posted->status;
            }

            return $statuses;
        }, 60.0);
        $served = static function () use ($server): array {
            return \array_map(static fn (mixed $w): int => \is_array($w) ? (int) ($w['requests'] ?? 0) : 0, $server->status()['workers'] ?? []);
        };

        // Which worker accepts a connection is the kernel's choice, and 40 sequential ones
        // can all go to the same (about one run in ten): sign up 20 more (up to 200 in all)
        // until both workers have served some, so that forms cross between them. The counts
        // come from the status file, which lags: wait until it has every request.
        $statuses = [];
        do {
            \array_push($statuses, ...$signUps(\count($statuses)));
            PetrelProcess::waitFor(static fn (): bool => \array_sum($served()) >= 2 * \count($statuses), 15.0, 'the status file to count every request');
            $counts = $served();
        } while ((\count($counts) < 2 || \min($counts) === 0) && \count($statuses) < 200);

        self::assertSame(\array_fill(0, \count($statuses), 303), $statuses);
        self::assertCount(2, $counts);
        self::assertGreaterThan(0, \min($counts), 'both workers served sign-ups: ' . \json_encode($counts));
        self::assertNotSame([], \glob("{$this->dir}/var/sessions/*.json"), 'sessions are files without Redis');
    }

    public function testWorkersBootingTogetherOnAFreshSqliteFileAllComeUp(): void
    {
        $address = $this->startPetrel(
            ['DATABASE_URL' => "sqlite://{$this->dir}/fresh/blog.sqlite", 'BLOG_VAR_DIR' => "{$this->dir}/var", 'REDIS_URL' => null],
            ['--workers=4'],
        );
        $this->async(static function () use ($address): void {
            for ($i = 0; $i < 8; $i++) {
                self::assertStringContainsString('Hello, Ada Lovelace!', RawHttp::get($address, '/')->body);
            }
        }, 30.0);
        self::assertStringNotContainsString('failed', $this->servers[0]->log());
    }

    /** `/`, pagination, a missing user, the JSON API. */
    private function checkPages(string $address): void
    {
        $home = RawHttp::get($address, '/');
        self::assertSame(200, $home->status, $home->body . $this->serverLogs());
        self::assertSame('text/html; charset=utf-8', $home->header('content-type'));
        self::assertStringContainsString('<h2>Hello, Ada Lovelace!</h2>', $home->body);
        self::assertStringContainsString('<title>Petrel blog</title>', $home->body, 'the layout');
        self::assertStringContainsString('<a href="/users">Members</a>', $home->body, 'the included navigation');
        self::assertMatchesRegularExpression('/^[0-9a-f]{16}$/', (string) $home->header('x-request-id'), 'middleware 1: request id');
        self::assertNotSame($home->header('x-request-id'), RawHttp::get($address, '/')->header('x-request-id'), 'a new id per request');
        self::assertMatchesRegularExpression('/^app;dur=\d+\.\d\d$/', (string) $home->header('server-timing'), 'middleware 2: timing');
        self::assertNull($home->header('set-cookie'), '/ starts no session');
        self::assertSame('trace-me-1234', RawHttp::get($address, '/', ['X-Request-Id' => 'trace-me-1234'])->header('x-request-id'));

        $page = RawHttp::get($address, '/users?page=2');
        self::assertSame(200, $page->status);
        self::assertStringContainsString('Page 2 of 3 (60 members)', $page->body);
        self::assertStringContainsString('<a href="/users/21">John Backus</a>', $page->body);
        self::assertStringContainsString('<a href="/users/40">Carol Shaw</a>', $page->body);
        self::assertStringNotContainsString('href="/users/20"', $page->body);
        self::assertStringNotContainsString('href="/users/41"', $page->body);
        self::assertStringContainsString('<a rel="prev" href="/users?page=1">', $page->body);
        self::assertStringContainsString('<a rel="next" href="/users?page=3">', $page->body);
        self::assertStringContainsString('Karen Spärck Jones', RawHttp::get($address, '/users')->body . RawHttp::get($address, '/users/38')->body);
        self::assertSame(404, RawHttp::get($address, '/users?page=9')->status);

        $missing = RawHttp::get($address, '/users/9999');
        self::assertSame(404, $missing->status);
        self::assertSame('text/html; charset=utf-8', $missing->header('content-type'));
        self::assertStringContainsString('User not found', $missing->body);

        $api = RawHttp::get($address, '/api/users/1');
        self::assertSame(200, $api->status);
        self::assertSame('application/json', $api->header('content-type'));
        $user = \json_decode($api->body, true);
        self::assertIsArray($user);
        self::assertSame([1, 'Ada Lovelace', 'ada.lovelace@example.com'], [$user['id'] ?? null, $user['name'] ?? null, $user['email'] ?? null]);
        $none = RawHttp::get($address, '/api/users/9999');
        self::assertSame(404, $none->status);
        self::assertSame('{"error":{"status":404,"message":"User not found"}}', $none->body);
    }

    /**
     * The sign-up form: GET it (session cookie + CSRF token), POST without the token (403),
     * invalid data (422, messages, the input kept and escaped), valid data (303 to the new
     * user's page, where the name shows escaped), the same email again (422).
     *
     * @param bool $keepAlive send every request on one connection
     * @param bool $multipart post multipart/form-data instead of urlencoded
     */
    private function checkSignUp(string $address, string $email, bool $multipart = false, bool $keepAlive = false, int $expectedId = 61): void
    {
        $client = new BlogClient($address, $keepAlive);
        try {
            $form = $client->request('GET', '/users/new');
            self::assertSame(200, $form->status, $form->body);
            self::assertMatchesRegularExpression('/petrel_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/', (string) $form->header('set-cookie'));
            self::assertSame(1, \preg_match('/name="_token" value="([^"]+)"/', $form->body, $m), 'the form carries a CSRF token');
            $token = $m[1] ?? '';

            $forged = $client->post('/users', ['name' => 'Mallory', 'email' => 'mallory@example.org'], $multipart);
            self::assertSame(403, $forged->status, 'no CSRF token');
            $wrong = $client->post('/users', ['_token' => 'x' . $token, 'name' => 'Mallory', 'email' => 'mallory@example.org'], $multipart);
            self::assertSame(403, $wrong->status, 'a wrong CSRF token');

            $invalid = $client->post('/users', ['_token' => $token, 'name' => '<b>Eve</b>', 'email' => 'not-an-email'], $multipart);
            self::assertSame(422, $invalid->status, $invalid->body);
            self::assertStringContainsString('The email field must be a valid email address.', $invalid->body);
            self::assertStringContainsString('value="&lt;b&gt;Eve&lt;/b&gt;"', $invalid->body, 'the input is kept, escaped');
            self::assertStringContainsString('value="not-an-email"', $invalid->body);
            self::assertStringNotContainsString('<b>Eve</b>', $invalid->body);

            $name = "Grace <Test> O'Neil";
            $created = $client->post('/users', ['_token' => $token, 'name' => $name, 'email' => $email, 'bio' => 'Hi & bye'], $multipart);
            self::assertSame(303, $created->status, $created->body);
            self::assertSame("/users/{$expectedId}?created=1", $created->header('location'));

            $page = $client->request('GET', "/users/{$expectedId}?created=1");
            self::assertSame(200, $page->status);
            self::assertStringContainsString('<h2>Grace &lt;Test&gt; O&#039;Neil</h2>', $page->body);
            self::assertStringContainsString('Welcome aboard', $page->body);
            self::assertStringContainsString('<blockquote>Hi &amp; bye</blockquote>', $page->body);
            self::assertStringNotContainsString('<Test>', $page->body);
            $json = \json_decode($client->request('GET', "/api/users/{$expectedId}")->body, true);
            self::assertSame([$name, $email], [$json['name'] ?? null, $json['email'] ?? null]);

            $again = $client->post('/users', ['_token' => $token, 'name' => 'Grace Again', 'email' => $email], $multipart);
            self::assertSame(422, $again->status);
            self::assertStringContainsString('That email address is already taken.', $again->body);
        } finally {
            $client->close();
        }
    }

    /**
     * @param array<string, string|null> $env null unsets a variable
     * @param list<string> $options
     */
    private function startPetrel(array $env, array $options): string
    {
        $server = new PetrelProcess(self::BLOG . '/app.php', $options);
        $this->servers[] = $server;
        self::withEnv($env, static fn () => $server->start(30.0));

        return $server->address;
    }

    /** @param array<string, string|null> $env */
    /** What the servers of this test wrote (Petrel's logs, php -S's): for a failure message. */
    private function serverLogs(): string
    {
        $logs = \array_map(static fn (PetrelProcess $server): string => $server->log(), $this->servers);
        if ($this->builtinLog !== null) {
            $logs[] = (string) @\file_get_contents($this->builtinLog);
        }

        return "\n--- server logs ---\n" . \implode("\n---\n", $logs);
    }

    private function startBuiltinServer(array $env): string
    {
        $address = '127.0.0.1:' . PetrelProcess::freePort();
        $this->builtinLog = "{$this->dir}/php-s.log";
        $environment = \array_filter(\array_merge(\getenv(), $env), static fn (?string $value): bool => $value !== null);
        $process = \proc_open(
            [\PHP_BINARY, '-S', $address, '-t', self::BLOG . '/public', self::BLOG . '/public/index.php'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->builtinLog, 'w'], 2 => ['file', $this->builtinLog, 'a']],
            $pipes,
            null,
            $environment,
        );
        self::assertIsResource($process);
        $this->builtin = $builtin = $process;
        $log = $this->builtinLog;
        PetrelProcess::waitFor(static function () use ($address, $builtin, $log): bool {
            if (!\proc_get_status($builtin)['running']) {
                throw new \RuntimeException("php -S exited:\n" . @\file_get_contents($log));
            }
            $socket = @\stream_socket_client("tcp://{$address}", $errno, $error, 0.2);
            if ($socket === false) {
                return false;
            }
            \fclose($socket);

            return true;
        }, 10.0, 'php -S to listen');

        return $address;
    }

    /**
     * Runs $start with the environment changed (child processes inherit it), then puts it back.
     *
     * @param array<string, string|null> $env
     */
    private static function withEnv(array $env, \Closure $start): void
    {
        $saved = [];
        foreach ($env as $name => $value) {
            $saved[$name] = \getenv($name);
            \putenv($value === null ? $name : "{$name}={$value}");
        }
        try {
            $start();
        } finally {
            foreach ($saved as $name => $value) {
                \putenv($value === false ? $name : "{$name}={$value}");
            }
        }
    }

    /**
     * The service URL in $variable. Skipped when it is not set or $class does not exist yet;
     * with PETREL_REQUIRE_SERVICES=1 (CI), a URL that is set but cannot be used fails.
     *
     * @param class-string $class
     */
    private static function requireService(string $variable, string $class): string
    {
        $url = \getenv($variable);
        if (!\is_string($url) || $url === '') {
            self::markTestSkipped("{$variable} is not set");
        }
        if (!\class_exists($class)) {
            if (\getenv('PETREL_REQUIRE_SERVICES') === '1') {
                self::fail("{$variable} is set but {$class} does not exist (PETREL_REQUIRE_SERVICES=1 forbids skipping)");
            }
            self::markTestSkipped("{$class} does not exist yet");
        }

        return $url;
    }
}
