<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

use DateTimeImmutable;
use Petrel\Database\Database;
use Petrel\Web\Internal\IntegerText;
use Petrel\Web\Model\Internal\Cast;
use Petrel\Web\Model\Internal\TemplateReads;
use Petrel\Web\View\Internal\AttributeMiss;
use Petrel\Web\View\Internal\StoredDates;

/**
 * A row of a table as an object (active record).
 *
 *     final class User extends Model
 *     {
 *         protected static string $table = 'users';
 *         protected static array $casts = ['id' => 'int', 'active' => 'bool', 'meta' => 'json'];
 *         protected static array $fillable = ['name', 'email'];
 *     }
 *     Model::setDatabase($db);                       // once per worker
 *     $user = User::create(['name' => 'Ada', 'email' => 'ada@example.com']);
 *     $user->name = 'Ada L.'; $user->save();         // UPDATE of the changed column only
 *     $page = User::where('active', true)->orderBy('name')->paginate(2, 20);
 *
 * Attributes are read and written as properties ($user->name) or with get()/set(); casts
 * apply on both: int, float, bool, string, datetime (DateTimeImmutable, stored as
 * 'Y-m-d H:i:s' in the default timezone), json (decoded), decimal and decimal:N (numeric
 * strings); a value that cannot take its cast is a ModelError. Loaded dates and JSON are
 * converted when first used, not when the row is read (a page showing one date of a row
 * does not pay for the others; a bad stored value fails where it is used). Declare the
 * columns as `@property` tags on the class for static analysis and IDEs. Mass assignment
 * (constructor, fill(), create()) takes only the $fillable attributes and silently drops
 * the rest, so request input can be passed as is; set() is not restricted. Models hold no
 * connection: each query goes through the Database, which leases one connection per
 * coroutine, so models are safe in concurrent requests and take part in the current
 * Database::transaction().
 *
 * Over 400 lines on purpose: this is the class applications extend, so the attribute,
 * cast and persistence API is in one place; queries and relations are in the traits.
 */
abstract class Model implements \JsonSerializable, StoredDates
{
    use Internal\DatabaseResolver;
    use Internal\Relations;

    /** The casts of the columns $timestamps fills, unless $casts says otherwise. */
    private const TIMESTAMP_CASTS = ['created_at' => 'datetime', 'updated_at' => 'datetime'];

    /** The table; '' derives it from the class name: BlogPost → blog_posts. */
    protected static string $table = '';
    protected static string $primaryKey = 'id';
    /** @var array<string, string> attribute => int|float|bool|string|datetime|json|decimal[:N] */
    protected static array $casts = [];
    /** @var list<string> attributes that mass assignment may set */
    protected static array $fillable = [];
    /** @var list<string> attributes left out of toArray() and JSON */
    protected static array $hidden = [];
    /** Fill created_at on insert and updated_at on every save (cast as datetime). */
    protected static bool $timestamps = false;

    /** @var array<string, mixed> */
    private array $attributes = [];
    /** @var array<string, mixed> the attributes as last loaded or saved */
    private array $original = [];
    private bool $persisted = false;
    /**
     * This class's TemplateReads, kept by load() (a static lookup costs as much as the
     * rest of directAttribute()); null until then.
     *
     * @var array<string, true>|false|null
     */
    private array|false|null $templateRead = null;
    /** @var array<string, string> loaded attributes still as the database returned them (or NULL, or not in the row) => their Cast::deferredBase() */
    private array $uncast = [];

    /** @var array<string, array<string, array<string, string>>> find()'s SQL by driver, table and primary key */
    private static array $findSql = [];
    /** @var array<class-string, array{array<string, string>, array<string, string>, array<string, true>|false}> load()'s casts by class: applied now, deferred; and its TemplateReads */
    private static array $loadCasts = [];

    /** @param array<string, mixed> $attributes mass-assigned (fillable only) */
    final public function __construct(array $attributes = [])
    {
        if ($attributes !== []) { // a model loaded from a row starts empty: a call less per row
            $this->fill($attributes);
        }
    }

    public static function tableName(): string
    {
        $table = static::$table; // read once: each static:: property read is a lookup (find() calls this every time)
        if ($table !== '') {
            return $table;
        }
        $short = \substr((string) \strrchr('\\' . static::class, '\\'), 1);

        return \strtolower((string) \preg_replace('/(?<=[a-z0-9])([A-Z])/', '_$1', $short)) . 's';
    }

    /** @return Query<static> a query on the table that returns models */
    public static function query(): Query
    {
        return Query::on(static::database())->table(static::tableName())->map(static fn (array $row): static => self::fromRow($row));
    }

    /**
     * static::query()->where(…).
     *
     * @param string|Raw|\Closure(Query<static>): Query<static>|array<string, mixed> $column
     * @return Query<static>
     */
    public static function where(string|Raw|\Closure|array $column, mixed $operator = null, mixed $value = null): Query
    {
        return static::query()->where(...\func_get_args());
    }

    /** @return list<static> */
    public static function all(): array
    {
        return static::query()->get();
    }

    /** The row with primary key $key; null too for a key an int primary key cannot hold ("abc", "1abc"). */
    public static function find(int|string $key): ?static
    {
        if (\is_string($key) && self::hasIntKey(static::$primaryKey)) {
            // Compared with an int column, MariaDB reads "1abc" as 1 (and finds row 1) and
            // PostgreSQL fails the query (a 500 where a 404 was meant): no such row anywhere.
            $key = IntegerText::parse($key);
            if ($key === null) {
                return null;
            }
        }
        $db = static::database();
        $row = $db->first(self::findSql($db), [$key]);

        return $row === null ? null : self::fromRow($row);
    }

    /** @throws ModelNotFoundException (a 404 when it escapes a request) */
    public static function findOrFail(int|string $key): static
    {
        return static::find($key) ?? throw new ModelNotFoundException(static::class, $key);
    }

    /** @param array<string, mixed> $attributes mass-assigned (fillable only), then saved */
    public static function create(array $attributes): static
    {
        $model = new static($attributes);
        $model->save();

        return $model;
    }

    /** @param array<string, mixed> $attributes only the fillable ones are set */
    public function fill(array $attributes): static
    {
        if ($attributes === []) {
            return $this;
        }
        foreach (\array_intersect_key($attributes, \array_flip(static::$fillable)) as $key => $value) {
            $this->set($key, $value);
        }

        return $this;
    }

    public function get(string $key): mixed
    {
        if (isset($this->uncast[$key])) {
            $this->castLoaded($key);
        }

        return $this->attributes[$key] ?? null;
    }

    public function set(string $key, mixed $value): static
    {
        if (isset($this->uncast[$key])) {
            $this->castLoaded($key); // what was loaded, as dirty() compares it
        }
        $this->attributes[$key] = Cast::fromInput(self::castOf($key), $value, $key);

        return $this;
    }

    public function __get(string $key): mixed
    {
        return $this->get($key);
    }

    /**
     * @internal for templates compiled by View: `{{ model.name }}` in one call, the value
     * Twig finds with isset() and a read, here __isset() and __get() (see DirectAttributes).
     * AttributeMiss::Miss, for Twig to look itself, when the attribute is not set (Twig then
     * tries methods: getName()...) or the class reads attributes otherwise.
     */
    final public function directAttribute(string $name): mixed
    {
        $reads = $this->templateRead ??= TemplateReads::of(static::class);
        if ($reads === false || isset($reads[$name]) || !isset($this->attributes[$name])) {
            return AttributeMiss::Miss;
        }
        if (isset($this->uncast[$name])) {
            $this->castLoaded($name);
        }

        return $this->attributes[$name];
    }

    /**
     * @internal for templates compiled by View: `{{ model.created_at|date(format) }}` from the
     * string the row held, while that date is not converted yet (see StoredDates); null
     * wherever directAttribute() would not return the converted date.
     */
    final public function storedDate(string $name): ?string
    {
        $reads = $this->templateRead ??= TemplateReads::of(static::class);
        if ($reads === false || isset($reads[$name]) || ($this->uncast[$name] ?? null) !== 'datetime') {
            return null;
        }
        $value = $this->attributes[$name] ?? null;

        return \is_string($value) ? $value : null;
    }

    public function __set(string $key, mixed $value): void
    {
        $this->set($key, $value);
    }

    public function __isset(string $key): bool
    {
        return isset($this->attributes[$key]);
    }

    public function __unset(string $key): void
    {
        if (isset($this->uncast[$key])) {
            $this->castLoaded($key);
        }
        unset($this->attributes[$key]);
    }

    public function key(): int|string|null
    {
        $key = $this->get(static::$primaryKey);

        return \is_int($key) || \is_string($key) ? $key : null;
    }

    /** Whether the model has a row in the table (it was loaded or saved, and not deleted). */
    public function exists(): bool
    {
        return $this->persisted;
    }

    /** Whether $key (or any attribute) differs from what was last loaded or saved. */
    public function isDirty(?string $key = null): bool
    {
        $dirty = $this->dirty();

        return $key === null ? $dirty !== [] : \array_key_exists($key, $dirty);
    }

    /** @return array<string, mixed> the changed attributes */
    public function dirty(): array
    {
        $this->castAllLoaded();
        $dirty = [];
        foreach ($this->attributes as $key => $value) {
            $cast = self::castOf($key);
            if (!\array_key_exists($key, $this->original) || Cast::toDatabase($cast, $value) !== Cast::toDatabase($cast, $this->original[$key])) {
                $dirty[$key] = $value;
            }
        }

        return $dirty;
    }

    /**
     * INSERT (a new model; reads back a generated primary key) or UPDATE of the dirty
     * attributes (none: no query).
     */
    public function save(): void
    {
        $this->castAllLoaded();
        $now = static::$timestamps ? self::now() : null;
        if (!$this->persisted) {
            if ($now !== null) {
                $this->attributes['created_at'] ??= $now;
                $this->attributes['updated_at'] ??= $now;
            }
            $row = $this->databaseValues($this->attributes);
            $pk = static::$primaryKey;
            if (($row[$pk] ?? null) !== null) {
                static::query()->insert($row);
            } else {
                unset($row[$pk]);
                $this->attributes[$pk] = Cast::fromDatabase(self::castOf($pk), static::query()->insertGetId($row, $pk), $pk);
            }
        } else {
            $dirty = $this->dirty();
            if ($dirty === []) {
                return;
            }
            if ($now !== null && !isset($dirty['updated_at'])) {
                $dirty['updated_at'] = $this->attributes['updated_at'] = $now;
            }
            $this->whereKey()->update($this->databaseValues($dirty));
        }
        $this->persisted = true;
        $this->original = $this->attributes;
    }

    /** Deletes the row; false if it was already gone. The object keeps its attributes. */
    public function delete(): bool
    {
        if (!$this->persisted) {
            return false;
        }
        $deleted = $this->whereKey()->delete() > 0;
        $this->persisted = false;

        return $deleted;
    }

    /** Reloads every attribute from the table, dropping unsaved changes (a changed primary key too). */
    public function refresh(): static
    {
        $row = Query::on(static::database())->table(static::tableName())->where(static::$primaryKey, $this->storedKey())->first();
        if ($row === null) {
            throw new ModelNotFoundException(static::class, $this->key());
        }
        $this->load($row);

        return $this;
    }

    /** @return array<string, mixed> the attributes but the hidden ones, dates as ISO 8601 */
    public function toArray(): array
    {
        $this->castAllLoaded();
        $values = \array_diff_key($this->attributes, \array_flip(static::$hidden));

        return \array_map(Cast::toJson(...), $values);
    }

    /** @return array<string, mixed> */
    public function jsonSerialize(): array
    {
        return $this->toArray();
    }

    /** @param array<string, mixed> $row */
    private static function fromRow(array $row): static
    {
        $model = new static();
        $model->load($row);

        return $model;
    }

    /**
     * The SELECT of find(): static::query()->where(primary key, ?)->limit(1), built once per
     * dialect, table and key (it depends on nothing else) instead of on every call.
     */
    private static function findSql(Database $db): string
    {
        $driver = $db->driverName();
        $table = static::tableName();
        $primaryKey = static::$primaryKey;

        // Model::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        return Model::$findSql[$driver][$table][$primaryKey] ??= Query::on($db)->table($table)->where($primaryKey, self::keyPlaceholder($driver, $primaryKey))->limit(1)->toSql()[0];
    }

    /**
     * The key in find()'s query. PostgreSQL takes a parameter's type from the column and
     * fails the query for a whole number past an INT column's range (2^31 - 1), where the
     * other servers find no row: an int key is compared as BIGINT there (the INT column's
     * index still serves).
     */
    private static function keyPlaceholder(string $driver, string $primaryKey): Raw|int
    {
        return $driver === 'pgsql' && self::hasIntKey($primaryKey) ? Query::raw('CAST(? AS BIGINT)', [0]) : 0;
    }

    private static function hasIntKey(string $primaryKey): bool
    {
        return \in_array(self::castOf($primaryKey), ['int', 'integer'], true);
    }

    private static function castOf(string $key): ?string
    {
        return static::$casts[$key] ?? (static::$timestamps ? self::TIMESTAMP_CASTS[$key] ?? null : null);
    }

    private static function now(): DateTimeImmutable
    {
        return (new DateTimeImmutable('@' . \time()))->setTimezone(new \DateTimeZone(\date_default_timezone_get()));
    }

    /**
     * Takes a row as the database returned it. Cheap casts apply now; dates and JSON wait
     * in $uncast for their first use (castLoaded()).
     *
     * @param array<string, mixed> $row
     */
    private function load(array $row): void
    {
        [$now, $later, $this->templateRead] = Model::$loadCasts[static::class] ??= self::loadCasts();
        $this->attributes = $row;
        foreach ($now as $key => $cast) {
            // NULL stays NULL whatever the cast, and an int column that the driver returned
            // as an int (SQLite, MySQL's binary rows) is one already: three calls less each.
            if (isset($row[$key]) && ($cast !== 'int' || !\is_int($row[$key]))) {
                $this->attributes[$key] = Cast::fromDatabase($cast, $row[$key], $key);
            }
        }
        // All the class's deferred attributes, the NULL or absent ones too (castLoaded()
        // leaves those as they are): the class's array shared, not one built per row.
        $this->uncast = $later;
        $this->original = $this->attributes;
        $this->persisted = true;
    }

    /**
     * The class's casts split for load(): applied at once, and deferred. Casts are
     * declarations, so this is worked out once per class, not for every row.
     *
     * With them, the class's TemplateReads, which load() keeps in each model.
     *
     * @return array{array<string, string>, array<string, string>, array<string, true>|false} the deferred as their base cast
     */
    private static function loadCasts(): array
    {
        $split = [[], [], TemplateReads::of(static::class)];
        foreach (static::$timestamps ? static::$casts + self::TIMESTAMP_CASTS : static::$casts as $key => $cast) {
            $base = Cast::deferredBase($cast);
            if ($base === null) {
                $split[0][$key] = $cast;
            } else {
                $split[1][$key] = $base;
            }
        }

        return $split;
    }

    /**
     * Casts a loaded attribute still in its database form, in both the current and the
     * original values; one that was NULL or not in the row is left so.
     */
    private function castLoaded(string $key): void
    {
        if (isset($this->attributes[$key])) {
            $value = Cast::fromDatabaseDeferred($this->uncast[$key], $this->attributes[$key], $key);
            $this->attributes[$key] = $this->original[$key] = $value;
        }
        unset($this->uncast[$key]);
    }

    private function castAllLoaded(): void
    {
        foreach ($this->uncast as $key => $cast) {
            $this->castLoaded($key);
        }
    }

    /**
     * @param array<string, mixed> $attributes
     * @return array<string, mixed>
     */
    private function databaseValues(array $attributes): array
    {
        $values = [];
        foreach ($attributes as $key => $value) {
            $values[$key] = Cast::toDatabase(self::castOf($key), $value);
        }

        return $values;
    }

    /** @return Query<static> the model's row, found by the key it has in the table */
    private function whereKey(): Query
    {
        return static::query()->where(static::$primaryKey, $this->storedKey());
    }

    /**
     * The primary key as last loaded or saved, not as changed since: a renamed key
     * ($country->code = 'XX') must find its row by the old value, or save() updates
     * another row (the one already holding the new key) or none, and delete() deletes it.
     * A model loaded or saved without its key takes the one it was given.
     */
    private function storedKey(): int|string
    {
        $key = $this->original[static::$primaryKey] ?? $this->key();

        return \is_int($key) || \is_string($key)
            ? $key
            : throw new ModelError(static::class . ' has no primary key value ("' . static::$primaryKey . '")');
    }
}
