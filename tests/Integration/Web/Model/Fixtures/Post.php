<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model\Fixtures;

use Petrel\Web\Model\Model;
use Petrel\Web\Model\Query;

/**
 * @property int $id
 * @property int $user_id
 * @property string $title
 */
final class Post extends Model
{
    protected static string $table = 'petrel_model_posts';
    protected static array $casts = ['id' => 'int', 'user_id' => 'int'];
    protected static array $fillable = ['user_id', 'title'];

    /** @return Query<User> */
    public function author(): Query
    {
        return $this->belongsTo(User::class, 'user_id');
    }
}
