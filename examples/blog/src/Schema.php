<?php

declare(strict_types=1);

namespace Blog;

use Petrel\Database\Database;

/**
 * Creates the users table and its seed rows if they are missing. Every worker runs this at
 * boot, possibly at the same moment (and in classic mode every request does), so it is
 * idempotent and cheap when there is nothing to do: one primary-key lookup. The DDL is the
 * only part that differs between SQLite, MariaDB/MySQL and PostgreSQL; the seed rows have
 * explicit ids and are inserted with "ignore duplicates", so concurrent boots cannot
 * insert a row twice.
 */
final class Schema
{
    /** Seeded users: enough for three pages at 20 a page. */
    public const SEEDED = 60;

    private const NAMES = [
        'Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov', 'Donald Knuth',
        'Margaret Hamilton', 'Ken Thompson', 'Dennis Ritchie', 'Frances Allen', 'John McCarthy', 'Radia Perlman',
        'Tim Berners-Lee', 'Leslie Lamport', 'Niklaus Wirth', 'Hedy Lamarr', 'Tony Hoare', 'Adele Goldberg',
        'Alan Kay', 'Katherine Johnson', 'John Backus', 'Jean Sammet', 'Claude Shannon', 'Annie Easley',
        'Vint Cerf', 'Sophie Wilson', 'Bjarne Stroustrup', 'Shafi Goldwasser', 'Robin Milner', 'Fran Bilas',
        'Guido van Rossum', 'Evelyn Berezin', 'Rasmus Lerdorf', 'Lynn Conway', 'Linus Torvalds', 'Mary Keller',
        'Brian Kernighan', 'Karen Spärck Jones', 'Ward Cunningham', 'Carol Shaw', 'Butler Lampson', 'Betty Holberton',
        'Edgar Codd', 'Kathleen Booth', 'Charles Babbage', 'Susan Kare', 'Ivan Sutherland', 'Joan Clarke',
        'Douglas Engelbart', 'Anita Borg', 'Richard Hamming', 'Ruth Teitelbaum', 'Peter Naur', 'Marlyn Meltzer',
        'Fernando Corbató', 'Kay McNulty', 'Larry Wall', 'Elizabeth Feinler', 'Yukihiro Matsumoto', 'Jon Postel',
    ];

    public static function ensure(Database $db, string $prefix = ''): void
    {
        $table = $prefix . 'users';
        if (self::isSeeded($db, $table)) {
            return;
        }
        self::locked($db, $table, static function () use ($db, $table): void {
            $db->execute(self::createTable($db->driverName(), $table));
            self::seed($db, $table);
        });
    }

    /** Drops the table (tests, and `BLOG_TABLE_PREFIX` experiments). */
    public static function drop(Database $db, string $prefix = ''): void
    {
        $db->execute("DROP TABLE IF EXISTS {$prefix}users");
    }

    private static function isSeeded(Database $db, string $table): bool
    {
        try {
            return $db->first("SELECT id FROM {$table} WHERE id = ?", [self::SEEDED]) !== null;
        } catch (\Petrel\Database\QueryException) {
            return false; // no table yet
        }
    }

    private static function createTable(string $driver, string $table): string
    {
        return match ($driver) {
            'mysql' => "CREATE TABLE IF NOT EXISTS {$table} (
                id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
                name VARCHAR(100) NOT NULL,
                email VARCHAR(190) NOT NULL,
                bio TEXT NULL,
                created_at DATETIME NOT NULL,
                updated_at DATETIME NOT NULL,
                UNIQUE KEY {$table}_email (email)
            ) DEFAULT CHARSET = utf8mb4",
            'pgsql' => "CREATE TABLE IF NOT EXISTS {$table} (
                id SERIAL PRIMARY KEY,
                name VARCHAR(100) NOT NULL,
                email VARCHAR(190) NOT NULL UNIQUE,
                bio TEXT NULL,
                created_at TIMESTAMP(0) NOT NULL,
                updated_at TIMESTAMP(0) NOT NULL
            )",
            default => "CREATE TABLE IF NOT EXISTS {$table} (
                id INTEGER PRIMARY KEY,
                name VARCHAR(100) NOT NULL,
                email VARCHAR(190) NOT NULL UNIQUE,
                bio TEXT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            )",
        };
    }

    private static function seed(Database $db, string $table): void
    {
        $driver = $db->driverName();
        $rows = $params = [];
        foreach (self::NAMES as $i => $name) {
            $id = $i + 1;
            $slug = \trim((string) \preg_replace('/[^a-z]+/', '.', \strtolower(\strtr($name, ['ä' => 'a', 'ó' => 'o']))), '.');
            $at = \gmdate('Y-m-d H:i:s', 1_704_099_600 + $id * 86_400);
            $rows[] = '(?, ?, ?, ?, ?, ?)';
            \array_push($params, $id, $name, "{$slug}@example.com", $id % 3 === 0 ? null : "Seeded member #{$id}.", $at, $at);
        }
        $values = \implode(', ', $rows);
        $db->execute(match ($driver) {
            'mysql' => "INSERT IGNORE INTO {$table} (id, name, email, bio, created_at, updated_at) VALUES {$values}",
            'pgsql' => "INSERT INTO {$table} (id, name, email, bio, created_at, updated_at) VALUES {$values} ON CONFLICT DO NOTHING",
            default => "INSERT OR IGNORE INTO {$table} (id, name, email, bio, created_at, updated_at) VALUES {$values}",
        }, $params);
        if ($driver === 'pgsql') {
            // Explicit ids do not advance the SERIAL sequence: move it past them, or the
            // first user created through the form would get id 1 again.
            $db->query("SELECT setval(pg_get_serial_sequence('{$table}', 'id'), GREATEST((SELECT MAX(id) FROM {$table}), 1))");
        }
    }

    /**
     * Runs $work holding a server-side lock (MariaDB/MySQL GET_LOCK, PostgreSQL advisory
     * lock), so workers booting together do not race on the DDL (PostgreSQL's
     * CREATE TABLE IF NOT EXISTS can fail under concurrency). SQLite serialises writers
     * itself (busy timeout). The lock and the work share this coroutine's connection.
     */
    private static function locked(Database $db, string $table, \Closure $work): void
    {
        $driver = $db->driverName();
        $key = "petrel-blog-schema-{$table}";
        if ($driver === 'mysql') {
            $db->query('SELECT GET_LOCK(?, 30)', [$key]);
        } elseif ($driver === 'pgsql') {
            $db->query('SELECT pg_advisory_lock(?)', [\crc32($key)]);
        }
        try {
            $work();
        } finally {
            if ($driver === 'mysql') {
                $db->query('SELECT RELEASE_LOCK(?)', [$key]);
            } elseif ($driver === 'pgsql') {
                $db->query('SELECT pg_advisory_unlock(?)', [\crc32($key)]);
            }
        }
    }
}
