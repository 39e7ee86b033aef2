<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model;

use Petrel\Database\Database;
use Petrel\Web\Model\Query;
use PHPUnit\Framework\Attributes\DataProvider;

/** The builder's terminal methods against real databases. */
final class QueryTest extends DatabaseTestCase
{
    #[DataProvider('backends')]
    public function testReadsAndAggregates(string $backend): void
    {
        $this->onBackend($backend, static function (Database $db): void {
            $users = Query::on($db)->table(Backends::USERS);
            $rows = [];
            for ($i = 1; $i <= 25; $i++) {
                $rows[] = ['name' => \sprintf('user %02d', $i), 'age' => $i % 5, 'email' => $i % 2 === 0 ? null : "u{$i}@example.com"];
            }
            self::assertSame(25, $users->insert($rows)->affectedRows);
            $id = $users->insertGetId(['name' => "O'Brien"]);
            self::assertSame(26, $id);

            self::assertSame(26, $users->count());
            self::assertSame(13, $users->whereNull('email')->count(), 'twelve even ids and O\'Brien');
            self::assertSame(6, $users->select('age')->distinct()->count(), 'DISTINCT rows (0-4 and NULL), counted as a sub-query');
            self::assertSame(5, $users->select('age')->whereNotNull('age')->groupBy('age')->count(), 'so are groups');
            self::assertTrue($users->where('name', "O'Brien")->exists());
            self::assertFalse($users->where('name', 'nobody')->exists());
            self::assertSame('user 03', $users->where('id', 3)->value('name'));
            self::assertNull($users->where('id', 999)->value('name'));
            self::assertSame(['user 01', 'user 02'], $users->whereIn('id', [1, 2, 999])->orderBy('id')->pluck('name'));
            self::assertSame([1 => 'user 01', 2 => 'user 02'], $users->where('id', '<=', 2)->orderBy('id')->pluck('name', 'id'));
            self::assertSame([], $users->whereIn('id', [])->get());
            self::assertSame(['id' => 4, 'name' => 'user 04'], $users->select('id', 'name')->where('name', 'like', 'user 0%')->where('age', 4)->first());
            self::assertSame(
                ['user 05', 'user 10', 'user 15'],
                $users->where(static fn (Query $q) => $q->where('age', 0)->orWhere('age', 'is', null))->whereNot('name', "O'Brien")->orderBy('id')->limit(3)->pluck('name'),
            );
            $counts = $users->select('age', Query::raw('COUNT(*) AS n'))->whereNotNull('age')->groupBy('age')->having(Query::raw('COUNT(*)'), '>=', 5)->orderBy('age')->get();
            self::assertSame([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]], \array_map(static fn (array $r) => [(int) $r['age'], (int) $r['n']], $counts));

            $page = $users->orderBy('id')->paginate(3, 10);
            self::assertSame([26, 3, 10, 3], [$page->total, $page->page, $page->perPage, $page->pages]);
            self::assertSame([21, 22, 23, 24, 25, 26], \array_map(static fn (array $r) => (int) $r['id'], $page->items));
            self::assertFalse($page->hasMore());
            self::assertSame([], $users->paginate(9, 10)->items);
            self::assertCount(10, $users->paginate(-1, 10)->items, 'pages below 1 are page 1');
        });
    }

    #[DataProvider('backends')]
    public function testWritesJoinsAndSubQueries(string $backend): void
    {
        $this->onBackend($backend, static function (Database $db): void {
            $users = Query::on($db)->table(Backends::USERS);
            $posts = Query::on($db)->table(Backends::POSTS);
            $ada = $users->insertGetId(['name' => 'Ada', 'age' => 1]);
            $bob = $users->insertGetId(['name' => 'Bob', 'age' => 1]);
            $users->insertGetId(['name' => 'Cy', 'age' => 1]);
            $posts->insert([['user_id' => $ada, 'title' => 'a1'], ['user_id' => $ada, 'title' => 'a2'], ['user_id' => $bob, 'title' => 'b1']]);

            $joined = $users->table(Backends::USERS . ' AS u')->select('u.name', 'p.title')
                ->join(Backends::POSTS . ' AS p', 'p.user_id', '=', 'u.id')->orderBy('p.id')->get();
            self::assertSame([['name' => 'Ada', 'title' => 'a1'], ['name' => 'Ada', 'title' => 'a2'], ['name' => 'Bob', 'title' => 'b1']], $joined);
            $left = $users->table(Backends::USERS . ' AS u')->select('u.name')
                ->leftJoin(Backends::POSTS . ' AS p', 'p.user_id', '=', 'u.id')->whereNull('p.id')->pluck('name');
            self::assertSame(['Cy'], $left);
            $authors = $users->whereIn('id', $posts->select('user_id')->where('title', 'like', 'a%'))->pluck('name');
            self::assertSame(['Ada'], $authors);

            self::assertSame(2, $users->whereIn('id', [$ada, $bob])->update(['age' => Query::raw('age + ?', [10]), 'email' => 'x@example.com']));
            self::assertSame([11, 11, 1], \array_map('intval', $users->orderBy('id')->pluck('age')));
            self::assertSame(2, $posts->where('user_id', $ada)->delete());
            self::assertSame(1, $posts->delete());
            self::assertSame(0, $posts->count());
            $evil = "Robert'); DROP TABLE " . Backends::USERS . '; --';
            $users->insert(['name' => $evil]);
            self::assertSame($evil, $users->where('name', $evil)->value('name'), 'values are bound, never interpolated');
        });
    }
}
