<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use Petrel\Web\Model\Model;
use Petrel\Web\Model\Query;

/**
 * Relations as queries, for Model: a method that returns one is the whole relation.
 *
 *     public function posts(): Query { return $this->hasMany(Post::class, 'user_id'); }
 *     public function author(): Query { return $this->belongsTo(User::class, 'user_id'); }
 *     $user->posts()->orderBy('id')->get();  $post->author()->first();
 *
 * No eager loading: each call is one query.
 *
 * @internal
 */
trait Relations
{
    /**
     * Rows of $related whose $foreignKey holds this model's $localKey (the primary key).
     *
     * @template R of Model
     * @param class-string<R> $related
     * @return Query<R>
     */
    protected function hasMany(string $related, string $foreignKey, ?string $localKey = null): Query
    {
        return $related::query()->where($related::tableName() . '.' . $foreignKey, $localKey === null ? $this->key() : $this->get($localKey));
    }

    /**
     * The row of $related whose $ownerKey (its primary key by default) this model's
     * $foreignKey holds; call first() on it.
     *
     * @template R of Model
     * @param class-string<R> $related
     * @return Query<R>
     */
    protected function belongsTo(string $related, string $foreignKey, string $ownerKey = 'id'): Query
    {
        return $related::query()->where($related::tableName() . '.' . $ownerKey, $this->get($foreignKey));
    }
}
