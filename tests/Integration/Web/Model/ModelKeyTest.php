<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model;

use Petrel\Tests\Integration\Web\Model\Fixtures\User;
use Petrel\Web\Model\ModelNotFoundException;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * Primary keys at their edges: a key changed in memory still saves, deletes and refreshes the
 * model's own row; a key an int primary key cannot hold finds nothing on every backend.
 */
final class ModelKeyTest extends DatabaseTestCase
{
    #[DataProvider('backends')]
    public function testSavingAChangedKeyMovesTheModelsOwnRow(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $ada = User::create(['name' => 'Ada']);
            $bob = User::create(['name' => 'Bob']);
            $oldId = $ada->id;

            $ada->id = 100;
            $ada->name = 'Ada L.';
            $ada->save();

            self::assertSame('Ada L.', User::find(100)?->name, 'the row moved to the new key');
            self::assertNull(User::find($oldId), 'nothing is left under the old key');
            self::assertSame('Bob', User::findOrFail($bob->id)->name);
            self::assertFalse($ada->isDirty());

            $ada->name = 'Ada Lovelace'; // the new key is now the stored one
            $ada->save();
            self::assertSame('Ada Lovelace', User::findOrFail(100)->name);
        });
    }

    #[DataProvider('backends')]
    public function testDeleteAndRefreshUseTheStoredKeyNotTheChangedOne(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $ada = User::create(['name' => 'Ada']);
            $bob = User::create(['name' => 'Bob']);

            $ada->id = $bob->id;
            self::assertSame('Ada', $ada->refresh()->name, 'refresh() reloads its own row');
            self::assertNotSame($bob->id, $ada->id, 'and drops the changed key');

            $ada->id = $bob->id;
            self::assertTrue($ada->delete());
            self::assertSame('Bob', User::find($bob->id)?->name, 'Bob was not deleted in Ada\'s place');
            self::assertSame(1, User::query()->count());
        });
    }

    #[DataProvider('backends')]
    public function testFindWithAKeyAnIntColumnCannotHoldFindsNothing(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $ada = User::create(['name' => 'Ada']);
            self::assertSame(1, $ada->id);

            foreach (['1abc', 'abc', '1.5', '', '99999999999999999999'] as $key) {
                self::assertNull(User::find($key), "find('{$key}')");
            }
            // Whole numbers past the column's range (PostgreSQL's INT ends at 2^31 - 1 and
            // refuses larger values in the comparison with 22003): no such row, not a 500.
            foreach ([2_147_483_648, \PHP_INT_MAX, -2_147_483_649, '2147483648', (string) \PHP_INT_MAX] as $key) {
                self::assertNull(User::find($key), "find({$key})");
            }
            self::assertSame('Ada', User::find('01')?->name, 'digits still find the row');
            self::assertSame('Ada', User::find('1')?->name);
            try {
                User::findOrFail('1abc');
                self::fail('expected ModelNotFoundException');
            } catch (ModelNotFoundException $e) {
                self::assertSame('1abc', $e->key);
            }
        });
    }
}
