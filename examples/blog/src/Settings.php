<?php

declare(strict_types=1);

namespace Blog;

use Petrel\Web\Config;

/**
 * The blog's settings, read once at boot: config.php with BLOG_* environment overrides,
 * plus DATABASE_URL and REDIS_URL (the contract every Petrel example follows).
 */
final readonly class Settings
{
    public function __construct(
        public string $databaseUrl,
        public ?string $redisUrl,
        public string $varDir,
        public bool $debug = false,
        public int $perPage = 20,
        public string $tablePrefix = '',
        public int $dbPool = 16,
        /** Booted per request (php-fpm, `php -S`) rather than once per worker. */
        public bool $classic = false,
    ) {
        if (\preg_match('/^[a-z0-9_]{0,32}$/', $tablePrefix) !== 1) {
            throw new \InvalidArgumentException('BLOG_TABLE_PREFIX may hold lower-case letters, digits and "_" only');
        }
        if ($perPage < 1 || $perPage > 100) {
            throw new \InvalidArgumentException('BLOG_PER_PAGE must be between 1 and 100');
        }
    }

    public static function fromEnvironment(string $configFile = __DIR__ . '/../config.php'): self
    {
        $config = Config::fromFile($configFile, 'BLOG_');
        $varDir = (string) $config->get('var_dir');

        return new self(
            databaseUrl: self::env('DATABASE_URL') ?? 'sqlite://' . $varDir . '/blog.sqlite',
            redisUrl: self::env('REDIS_URL'),
            varDir: $varDir,
            debug: (bool) $config->get('debug'),
            perPage: (int) $config->get('per_page'),
            tablePrefix: (string) $config->get('table_prefix'),
            dbPool: (int) $config->get('db_pool'),
            // Any SAPI but the CLI (fpm-fcgi, cli-server, apache2handler) runs a script per request.
            classic: \PHP_SAPI !== 'cli' && \PHP_SAPI !== 'phpdbg',
        );
    }

    private static function env(string $name): ?string
    {
        $value = \getenv($name);

        return \is_string($value) && $value !== '' ? $value : null;
    }
}
