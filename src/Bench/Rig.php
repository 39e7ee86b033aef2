<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Server\Launcher;
use Petrel\Bench\Server\MariaDb;

/**
 * What scenarios start their servers with: the workspace, the launcher, the project
 * root, the options, and the database the query scenarios share (started once).
 */
final class Rig
{
    public readonly Launcher $launcher;
    private ?string $mysqlUrl = null;
    private ?SkipException $mysqlMissing = null;

    /** @param array<string, string> $env the environment the run was started with */
    public function __construct(
        public readonly Workspace $workspace,
        public readonly string $root,
        public readonly Options $options,
        private readonly array $env,
    ) {
        $this->launcher = new Launcher($workspace, $root);
    }

    /**
     * A MariaDB/MySQL URL for examples/db.php: DATABASE_URL or MYSQL_URL when either is a
     * mysql:// URL, else a private MariaDB started in the workspace for this run.
     *
     * @throws SkipException when there is neither
     */
    public function mysqlUrl(): string
    {
        if ($this->mysqlUrl !== null) {
            return $this->mysqlUrl;
        }
        if ($this->mysqlMissing !== null) {
            throw $this->mysqlMissing;
        }
        $given = $this->givenMysqlUrl();
        if ($given !== null) {
            return $this->mysqlUrl = $given;
        }
        try {
            return $this->mysqlUrl = MariaDb::start($this->workspace);
        } catch (SkipException $missing) {
            throw $this->mysqlMissing = $missing;
        }
    }

    /** DATABASE_URL or MYSQL_URL when either is a mysql:// URL: a server the bench did not start. */
    public function givenMysqlUrl(): ?string
    {
        foreach (['DATABASE_URL', 'MYSQL_URL'] as $name) {
            $url = $this->env[$name] ?? '';
            if (\str_starts_with($url, 'mysql://')) {
                return $url;
            }
        }

        return null;
    }

    public function app(string $relative): string
    {
        return "{$this->root}/{$relative}";
    }
}
