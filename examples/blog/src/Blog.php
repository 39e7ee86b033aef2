<?php

declare(strict_types=1);

namespace Blog;

use Blog\Middleware\RequestId;
use Blog\Middleware\ServerTiming;
use Petrel\Database\Database;
use Petrel\Http\Request;
use Petrel\Pool\PoolConfig;
use Petrel\Redis\RedisConfig;
use Petrel\Web\App;
use Petrel\Web\Container\Container;
use Petrel\Web\Session\Csrf;
use Petrel\Web\Session\CsrfMiddleware;
use Petrel\Web\Session\FileSessionStore;
use Petrel\Web\Session\RedisStore;
use Petrel\Web\Session\SessionMiddleware;
use Petrel\Web\Session\SessionStore;
use Petrel\Web\View\View;

/**
 * Builds the blog: database (schema and seed rows made if missing), templates, services,
 * middleware and routes. Runs once per worker in the resident modes, once per request in
 * classic mode.
 */
final class Blog
{
    public static function app(Settings $settings): App
    {
        // A request that queries holds one pooled connection until it ends; requests beyond
        // the pool's size wait for one (BLOG_DB_POOL).
        $db = Database::fromUrl($settings->databaseUrl, new PoolConfig(max: $settings->dbPool));
        Schema::ensure($db, $settings->tablePrefix);
        User::setDatabase($db);
        User::useTablePrefix($settings->tablePrefix);

        $container = new Container();
        $app = new App($container, $settings->debug);
        $app->setErrorLogger(static function (\Throwable $error, Request $request): void {
            \error_log(\sprintf('blog: %s %s failed (request %s): %s', $request->getMethod(), $request->getTarget(), RequestId::current() ?? '-', $error));
        });

        $view = new View(
            \dirname(__DIR__) . '/templates',
            debug: $settings->debug,
            // Resident modes compile each template once per worker, in memory. Classic mode
            // starts from scratch on every request: compiled templates go to disk (opcache).
            cacheDir: $settings->classic ? $settings->varDir . '/twig' : null,
            globals: ['site' => 'Petrel blog'],
        );
        $view->addFunction('csrf_field', Csrf::field(...), safeHtml: true);
        $view->addFunction('url', $app->url(...), pure: true); // routes are fixed at boot: url('home') runs once

        $container->set(Settings::class, $settings);
        $container->set(Database::class, $db);
        $container->set(View::class, $view);
        foreach ([HomePage::class, UserPages::class, UserApi::class] as $controller) {
            $container->singleton($controller);
        }

        $app->middleware(new ServerTiming(), new RequestId());

        // Sessions only where a form needs them: the other pages never touch a session store.
        $session = [new SessionMiddleware(self::sessionStore($settings)), new CsrfMiddleware()];

        $app->get('/', HomePage::class)->name('home');
        $app->get('/users', [UserPages::class, 'index'])->name('users');
        $app->get('/users/new', [UserPages::class, 'create'])->name('users.new')->middleware(...$session);
        $app->post('/users', [UserPages::class, 'store'])->name('users.store')->middleware(...$session);
        $app->get('/users/{id:\d+}', [UserPages::class, 'show'])->name('user');
        $app->get('/api/users/{id:\d+}', [UserApi::class, 'show'])->name('api.user');

        return $app;
    }

    /**
     * Sessions (and so CSRF tokens and flash messages) where every worker sees them: Redis
     * when REDIS_URL is set (shared by several machines too), else files in var/sessions,
     * shared by the workers of this machine and by classic mode's per-request processes.
     * Never the worker's memory: a form posted to another worker would be refused.
     */
    private static function sessionStore(Settings $settings): SessionStore
    {
        return $settings->redisUrl !== null
            ? RedisStore::fromConfig(RedisConfig::fromUrl($settings->redisUrl), 'blog:session:')
            : new FileSessionStore($settings->varDir . '/sessions');
    }
}
