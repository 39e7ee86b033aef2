<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model;

use Petrel\Database\Database;
use Petrel\Tests\Unit\Web\Model\Fixtures\Account;
use Petrel\Web\Model\Model;
use Petrel\Web\Model\ModelNotFoundException;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * find() with a key an int primary key cannot hold answers "no such row" without asking
 * the database (which has no connection here: a query would fail): MariaDB would read
 * "1abc" as 1, PostgreSQL fail the query. Tests/Integration/Web/Model/ModelKeyTest
 * checks the same against the real backends.
 */
final class ModelFindKeyTest extends TestCase
{
    protected function tearDown(): void
    {
        Model::setDatabase(null);
    }

    /** @return iterable<string, array{string}> */
    public static function keysNoIntColumnHolds(): iterable
    {
        yield 'letters' => ['abc'];
        yield 'digits then letters' => ['1abc'];
        yield 'fraction' => ['1.5'];
        yield 'empty' => [''];
        yield 'past PHP_INT_MAX' => ['99999999999999999999'];
        yield 'inner space' => ['1 2'];
    }

    #[DataProvider('keysNoIntColumnHolds')]
    public function testFindsNothingWithoutAQuery(string $key): void
    {
        Model::setDatabase(Database::fromUrl('mysql://u:p@127.0.0.1:1/none'));

        self::assertNull(Account::find($key));
        try {
            Account::findOrFail($key);
            self::fail('expected ModelNotFoundException');
        } catch (ModelNotFoundException $e) {
            self::assertSame([Account::class, $key, 404], [$e->model, $e->key, $e->getStatus()]);
        }
    }
}
