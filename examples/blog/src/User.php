<?php

declare(strict_types=1);

namespace Blog;

use Petrel\Web\Model\Model;

/**
 * A member of the blog.
 *
 * @property int $id
 * @property string $name
 * @property string $email
 * @property string|null $bio
 * @property \DateTimeImmutable $created_at
 * @property \DateTimeImmutable $updated_at
 */
final class User extends Model
{
    protected static string $table = 'users';
    protected static array $casts = ['id' => 'int'];
    protected static array $fillable = ['name', 'email', 'bio'];
    protected static bool $timestamps = true;

    /** Called once at boot (BLOG_TABLE_PREFIX), before any query. */
    public static function useTablePrefix(string $prefix): void
    {
        self::$table = $prefix . 'users';
    }
}
