<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model\Fixtures;

use Petrel\Web\Model\Model;
use Petrel\Web\Model\Query;

/**
 * @property int $id
 * @property string $name
 * @property string|null $email
 * @property int|null $age
 * @property bool|null $active
 * @property float|null $score
 * @property string|null $balance
 * @property array<mixed>|null $meta
 * @property \DateTimeImmutable|null $born_at
 * @property \DateTimeImmutable|null $created_at
 * @property \DateTimeImmutable|null $updated_at
 */
final class User extends Model
{
    protected static string $table = 'petrel_model_users';
    protected static array $casts = [
        'id' => 'int',
        'age' => 'int',
        'active' => 'bool',
        'score' => 'float',
        'balance' => 'decimal:2',
        'meta' => 'json',
        'born_at' => 'datetime',
    ];
    protected static array $fillable = ['name', 'email', 'age', 'meta'];
    protected static bool $timestamps = true;

    /** @return Query<Post> */
    public function posts(): Query
    {
        return $this->hasMany(Post::class, 'user_id');
    }
}
