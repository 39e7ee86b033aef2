<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model;

use DateTimeImmutable;
use Petrel\Database\Connection;
use Petrel\Database\Database;
use Petrel\Tests\Integration\Web\Model\Fixtures\Post;
use Petrel\Tests\Integration\Web\Model\Fixtures\User;
use Petrel\Web\Model\ModelNotFoundException;
use PHPUnit\Framework\Attributes\DataProvider;

use function Petrel\go;

final class ModelCrudTest extends DatabaseTestCase
{
    #[DataProvider('backends')]
    public function testCreateFindUpdateDelete(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $ada = User::create(['name' => 'Ada', 'email' => 'ada@example.com', 'age' => 36, 'active' => false]);
            self::assertTrue($ada->exists());
            self::assertFalse($ada->isDirty());
            self::assertIsInt($ada->id);
            self::assertNull($ada->active, 'not fillable: left to the column default');
            $bob = User::create(['name' => 'Bob']);
            self::assertSame($ada->id + 1, $bob->id);

            $found = User::find($ada->id);
            self::assertInstanceOf(User::class, $found);
            self::assertSame(['Ada', 'ada@example.com', 36, true], [$found->name, $found->email, $found->age, $found->active]);
            self::assertNull(User::find(999));
            self::assertSame(['Ada', 'Bob'], \array_map(static fn (User $u) => $u->name, User::query()->orderBy('id')->get()));
            self::assertCount(2, User::all());
            self::assertSame('Bob', User::where('age', null)->first()?->name);
            $page = User::query()->orderBy('id')->paginate(2, 1);
            self::assertSame([2, 2, 'Bob'], [$page->total, $page->pages, $page->items[0]->name]);
            self::assertInstanceOf(User::class, $page->items[0]);

            $found->name = 'Ada Lovelace';
            $found->save();
            self::assertSame('Ada Lovelace', User::findOrFail($ada->id)->name);
            self::assertSame('Ada', $ada->name);
            self::assertSame('Ada Lovelace', $ada->refresh()->name);

            $manual = new User();
            $manual->set('id', 50)->set('name', 'Explicit key');
            $manual->save();
            self::assertSame(50, $manual->id);
            self::assertSame('Explicit key', User::findOrFail(50)->name);

            self::assertTrue($bob->delete());
            self::assertFalse($bob->exists());
            self::assertFalse($bob->delete());
            self::assertNull(User::find($bob->id));
            try {
                User::findOrFail($bob->id);
                self::fail('expected ModelNotFoundException');
            } catch (ModelNotFoundException $e) {
                self::assertSame([404, User::class, $bob->id], [$e->getStatus(), $e->model, $e->key]);
            }
            self::assertSame(2, User::query()->count());
        });
    }

    #[DataProvider('backends')]
    public function testCastsRoundTrip(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $user = new User(['name' => 'Cast']);
            $user->active = false;
            $user->score = 2.25;
            $user->balance = '1234.5';
            $user->meta = ['tags' => ['a', 'é'], 'nested' => ['n' => 1, 'f' => 1.5], 'null' => null];
            $user->born_at = new DateTimeImmutable('1990-05-17 08:30:00');
            $user->save();

            $loaded = User::findOrFail($user->id);
            self::assertFalse($loaded->active);
            self::assertSame(2.25, $loaded->score);
            self::assertSame('1234.50', $loaded->balance);
            self::assertEquals(['tags' => ['a', 'é'], 'nested' => ['n' => 1, 'f' => 1.5], 'null' => null], $loaded->meta, 'equal up to key order (JSONB sorts keys)');
            self::assertSame(['a', 'é'], $loaded->meta['tags'] ?? null);
            self::assertInstanceOf(DateTimeImmutable::class, $loaded->born_at);
            self::assertSame('1990-05-17 08:30:00', $loaded->born_at->format('Y-m-d H:i:s'));
            self::assertInstanceOf(DateTimeImmutable::class, $loaded->created_at);
            self::assertFalse($loaded->isDirty(), 'a loaded model is clean whatever the driver returned');

            $loaded->active = true;
            $loaded->meta = null;
            $loaded->save();
            $again = User::findOrFail($user->id);
            self::assertTrue($again->active);
            self::assertNull($again->meta);
        });
    }

    #[DataProvider('backends')]
    public function testNullsAndColumnsLeftOutOfASelectLoadWithoutCasts(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $user = User::create(['name' => 'Partial', 'age' => 7]);

            $loaded = User::findOrFail($user->id);
            self::assertSame([7, null, null, null], [$loaded->age, $loaded->meta, $loaded->born_at, $loaded->score]);
            self::assertFalse($loaded->isDirty());

            $some = User::query()->select('id', 'age', 'born_at')->where('id', $user->id)->first();
            self::assertInstanceOf(User::class, $some);
            self::assertSame([$user->id, 7, null], [$some->id, $some->age, $some->born_at]);
            self::assertFalse(isset($some->created_at), 'not selected: not an attribute');
            self::assertSame(['id', 'age', 'born_at'], \array_keys($some->toArray()));
        });
    }

    #[DataProvider('backends')]
    public function testDatesAndJsonAreConvertedWhenFirstUsed(string $backend): void
    {
        $this->onBackend($backend, static function (Database $db): void {
            $user = User::create(['name' => 'Lazy', 'meta' => ['a' => 1]]);
            $db->execute('UPDATE ' . Backends::USERS . ' SET born_at = ? WHERE id = ?', ['1990-05-17 08:30:00', $user->id]);

            $loaded = User::findOrFail($user->id);
            self::assertFalse($loaded->isDirty(), 'dirty() converts what it compares');
            $loaded = User::findOrFail($user->id);
            self::assertSame('1990-05-17', $loaded->born_at?->format('Y-m-d'));
            self::assertSame(['a' => 1], $loaded->meta);
            self::assertSame([], $loaded->dirty(), 'converted values are clean');

            $loaded = User::findOrFail($user->id);
            $loaded->born_at = new DateTimeImmutable('1990-05-17 08:30:00');
            self::assertSame([], $loaded->dirty(), 'the same date, set before the loaded one was ever read');
            $loaded->born_at = new DateTimeImmutable('1991-01-01 00:00:00');
            unset($loaded->meta);
            self::assertSame(['born_at'], \array_keys($loaded->dirty()));
            $loaded->save();
            self::assertSame('1991-01-01', User::findOrFail($user->id)->born_at?->format('Y-m-d'));

            $json = User::findOrFail($user->id)->toArray();
            self::assertSame(['a' => 1], $json['meta']);
            self::assertStringStartsWith('1991-01-01T00:00:00', (string) $json['born_at']);
        });
    }

    #[DataProvider('backends')]
    public function testSaveWritesOnlyDirtyAttributesAndTouchesUpdatedAt(string $backend): void
    {
        $this->onBackend($backend, static function (Database $db): void {
            $user = User::create(['name' => 'Dirty', 'email' => 'old@example.com']);
            self::assertNotNull($user->created_at);
            $db->execute('UPDATE ' . Backends::USERS . " SET email = ?, created_at = ?, updated_at = ? WHERE id = ?", ['new@example.com', '2000-01-01 00:00:00', '2000-01-01 00:00:00', $user->id]);
            $user = User::findOrFail($user->id);
            $user->name = 'Dirty';
            self::assertFalse($user->isDirty(), 'setting the same value is no change');
            $user->save(); // nothing to write
            self::assertSame('2000-01-01 00:00:00', User::findOrFail($user->id)->updated_at?->format('Y-m-d H:i:s'));

            $stale = User::findOrFail($user->id);
            $db->execute('UPDATE ' . Backends::USERS . ' SET email = ? WHERE id = ?', ['newest@example.com', $user->id]);
            $stale->name = 'Clean';
            self::assertSame(['name'], \array_keys($stale->dirty()));
            $stale->save();
            $row = User::findOrFail($user->id);
            self::assertSame(['Clean', 'newest@example.com'], [$row->name, $row->email], 'the column nobody changed here was not overwritten');
            self::assertSame('2000-01-01 00:00:00', $row->created_at?->format('Y-m-d H:i:s'));
            self::assertGreaterThan(new DateTimeImmutable('2001-01-01'), $row->updated_at);
        });
    }

    #[DataProvider('backends')]
    public function testModelsJoinTheCurrentTransaction(string $backend): void
    {
        $this->onBackend($backend, static function (Database $db): void {
            $id = $db->transaction(static fn (Connection $c) => User::create(['name' => 'Committed'])->id);
            try {
                $db->transaction(static function (): void {
                    User::create(['name' => 'Rolled back']);
                    self::assertSame(2, User::query()->count(), 'visible inside the transaction');
                    throw new \RuntimeException('abort');
                });
            } catch (\RuntimeException $e) {
                self::assertSame('abort', $e->getMessage());
            }
            self::assertSame(['Committed'], User::query()->pluck('name'));
            self::assertSame('Committed', User::findOrFail($id)->name);
        });
    }

    #[DataProvider('backends')]
    public function testRelationsArePlainQueries(string $backend): void
    {
        $this->onBackend($backend, static function (): void {
            $ada = User::create(['name' => 'Ada']);
            $bob = User::create(['name' => 'Bob']);
            foreach (['First', 'Second'] as $title) {
                Post::create(['user_id' => $ada->id, 'title' => $title]);
            }
            Post::create(['user_id' => $bob->id, 'title' => 'Other']);
            self::assertSame(['Second', 'First'], User::findOrFail($ada->id)->posts()->orderBy('id', 'desc')->pluck('title'));
            self::assertSame(1, $bob->posts()->count());
            $post = Post::where('title', 'Other')->first();
            self::assertSame('Bob', $post?->author()->first()?->name);
        });
    }

    #[DataProvider('backends')]
    public function testTwentyCoroutinesFindAndCreateConcurrently(string $backend): void
    {
        $this->onBackend($backend, static function (Database $db): void {
            $seed = User::create(['name' => 'Seed']);
            $tasks = [];
            for ($i = 0; $i < 20; $i++) {
                $tasks[] = go(static function () use ($i, $seed, $db): array {
                    $connection = \spl_object_id($db->connection());
                    $user = User::create(['name' => "user {$i}", 'age' => $i]);
                    \Petrel\sleep(0.001 * ($i % 3)); // interleave
                    $again = User::findOrFail($user->id);
                    self::assertSame(["user {$i}", $i], [$again->name, $again->age]);
                    self::assertSame('Seed', User::findOrFail($seed->id)->name);

                    return [$user->id, $connection];
                });
            }
            $results = \array_map(static fn ($task) => $task->join(), $tasks);
            self::assertCount(20, \array_unique(\array_column($results, 0)), 'every coroutine got its own row');
            self::assertGreaterThan(1, \count(\array_unique(\array_column($results, 1))), 'several pooled connections were used');
            self::assertSame(21, User::query()->count());
        }, poolSize: 5);
    }
}
