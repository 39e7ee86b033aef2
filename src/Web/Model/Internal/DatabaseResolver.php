<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use Petrel\Database\Database;
use Petrel\Web\Model\ModelError;

/**
 * Which Database a model class uses: a per-worker static registry (models are booted once
 * per worker, like the Database itself), looked up from the class up to Model.
 *
 * @internal
 */
trait DatabaseResolver
{
    /** @var array<class-string, Database> */
    private static array $databases = [];
    /**
     * database()'s answer by class, so that the walk up the parents (~900 instructions for
     * a direct subclass of Model) is done once, not on every find() and query(). Any
     * setDatabase() empties it: a registration can change the answer of every subclass.
     *
     * @var array<class-string, Database>
     */
    private static array $resolved = [];

    /**
     * The database of this model class and its subclasses (Model::setDatabase() sets the
     * default for all); null removes it.
     */
    public static function setDatabase(?Database $database): void
    {
        if ($database === null) {
            unset(self::$databases[static::class]);
        } else {
            self::$databases[static::class] = $database;
        }
        self::$resolved = [];
    }

    public static function database(): Database
    {
        return self::$resolved[static::class] ??= self::resolveDatabase();
    }

    private static function resolveDatabase(): Database
    {
        for ($class = static::class; $class !== false; $class = \get_parent_class($class)) {
            if (isset(self::$databases[$class])) {
                return self::$databases[$class];
            }
        }

        throw new ModelError('No database for ' . static::class . ': call Model::setDatabase($database) when the worker boots');
    }
}
