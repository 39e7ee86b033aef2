<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model\Fixtures;

use Petrel\Web\Model\Model;

/**
 * @property int|null $id
 * @property int|null $age
 * @property float|null $score
 * @property bool|null $active
 * @property string|null $name
 * @property \DateTimeImmutable|null $born_at
 * @property mixed $meta
 * @property string|null $balance
 * @property string|null $ratio
 * @property mixed $password
 * @property mixed $is_admin
 */
final class Account extends Model
{
    protected static string $table = 'accounts';
    protected static array $casts = [
        'id' => 'int',
        'age' => 'int',
        'score' => 'float',
        'active' => 'bool',
        'name' => 'string',
        'born_at' => 'datetime',
        'meta' => 'json',
        'balance' => 'decimal:2',
        'ratio' => 'decimal',
    ];
    protected static array $fillable = ['name', 'email', 'age', 'meta'];
    protected static array $hidden = ['password'];
}
