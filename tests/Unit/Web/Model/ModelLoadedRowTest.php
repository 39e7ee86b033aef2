<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model;

use DateTimeImmutable;
use Petrel\Tests\Unit\Web\Model\Fixtures\Account;
use Petrel\Web\Model\Model;
use Petrel\Web\Model\ModelError;
use Petrel\Web\View\Internal\AttributeMiss;
use PHPUnit\Framework\TestCase;

/**
 * A model loaded from a row, as find() and query results make it: its dates and JSON are
 * converted at their first use (any read, a save, toArray()), and whatever the row holds
 * there (a value, NULL, a bad value, no such column) must behave as if converted at once.
 */
final class ModelLoadedRowTest extends TestCase
{
    private string $timezone;

    protected function setUp(): void
    {
        $this->timezone = \date_default_timezone_get();
    }

    protected function tearDown(): void
    {
        \date_default_timezone_set($this->timezone);
    }

    public function testALoadedDateIsParsedInTheDefaultTimezoneOncePerModel(): void
    {
        \date_default_timezone_set('Europe/Paris');
        $first = self::loaded(['id' => 1, 'born_at' => '2024-01-02 03:04:05']);
        $second = self::loaded(['id' => 2, 'born_at' => '2024-01-02 03:04:05']);

        $date = $first->directAttribute('born_at');
        self::assertEquals(new DateTimeImmutable('2024-01-02 03:04:05'), $date);
        self::assertSame('Europe/Paris', $date->getTimezone()->getName());
        self::assertSame($date, $first->born_at, 'read again: the same object');
        self::assertNotSame($date, $second->born_at, 'another model: an object of its own');
        self::assertFalse($first->isDirty());
    }

    public function testANonCanonicalDateIsNotDirtyOnceRead(): void
    {
        $account = self::loaded(['id' => 1, 'born_at' => '2024-01-02T03:04:05']);
        $date = $account->born_at;
        self::assertInstanceOf(DateTimeImmutable::class, $date);
        self::assertSame('2024-01-02 03:04:05', $date->format('Y-m-d H:i:s'));
        self::assertSame([], $account->dirty());
        $account->born_at = $date->modify('+1 day');
        self::assertSame(['born_at'], \array_keys($account->dirty()));
    }

    public function testABadStoredDateFailsWhereItIsUsedAndEveryTime(): void
    {
        $account = self::loaded(['id' => 1, 'name' => 'Ada', 'born_at' => 'not a date']);
        self::assertSame('Ada', $account->name, 'the other attributes read fine');
        $uses = [static fn () => $account->born_at, static fn () => $account->directAttribute('born_at'), $account->toArray(...), $account->dirty(...),
            static fn () => $account->set('born_at', '2024-05-06 07:08:09')]; // a set() too: dirty() compares with what was loaded
        foreach ($uses as $use) {
            try {
                $use();
                self::fail('a bad stored date was used');
            } catch (ModelError $error) {
                self::assertSame('Attribute "born_at" is not a date: "not a date"', $error->getMessage());
                self::assertInstanceOf(\Exception::class, $error->getPrevious());
            }
        }
        self::assertSame('not a date', \Closure::bind(fn () => $this->attributes['born_at'], $account, Model::class)(), 'left as loaded');
    }

    public function testAnIntStoredForADateIsATimestamp(): void
    {
        \date_default_timezone_set('America/New_York');
        $date = self::loaded(['id' => 1, 'born_at' => 86400])->born_at;
        self::assertInstanceOf(DateTimeImmutable::class, $date);
        self::assertSame(['1970-01-01T19:00:00-05:00', 'America/New_York'], [$date->format(\DATE_ATOM), $date->getTimezone()->getName()]);
    }

    public function testNullAndMissingColumnsStayNullAndClean(): void
    {
        $account = self::loaded(['id' => 1, 'born_at' => null, 'meta' => null]);
        self::assertSame([null, null, null], [$account->born_at, $account->meta, $account->balance]);
        self::assertSame([AttributeMiss::Miss, AttributeMiss::Miss], [$account->directAttribute('born_at'), $account->directAttribute('meta')]);
        self::assertFalse(isset($account->born_at));
        self::assertSame(['id' => 1, 'born_at' => null, 'meta' => null], $account->toArray());
        self::assertSame([], $account->dirty());

        $partial = self::loaded(['id' => 2]); // SELECT id: the deferred columns are not in the row at all
        self::assertSame([null, null], [$partial->born_at, $partial->meta]);
        self::assertSame([], $partial->dirty());
        self::assertSame(['id' => 2], $partial->toArray());
        unset($partial->born_at);
        $partial->meta = ['a' => 1];
        self::assertSame(['id' => 2, 'meta' => ['a' => 1]], $partial->toArray());
        self::assertSame(['meta' => ['a' => 1]], $partial->dirty());
    }

    public function testLoadedJsonIsDecodedAtItsFirstUse(): void
    {
        $account = self::loaded(['id' => 1, 'meta' => '{"a":[1,2]}']);
        self::assertSame(['a' => [1, 2]], $account->directAttribute('meta'));
        self::assertSame([], $account->dirty());
        $bad = self::loaded(['id' => 2, 'meta' => '{nope']);
        $this->expectException(ModelError::class);
        $this->expectExceptionMessage('Attribute "meta" holds invalid JSON');
        $bad->get('meta');
    }

    public function testSettingAnAttributeStillUncastComparesWithWhatWasLoaded(): void
    {
        $account = self::loaded(['id' => 1, 'born_at' => '2024-01-02 03:04:05', 'meta' => '[1]']);
        $account->set('born_at', '2024-01-02 03:04:05');
        $account->meta = [1];
        self::assertSame([], $account->dirty());
    }

    /** @param array<string, mixed> $row */
    private static function loaded(array $row): Account
    {
        $fromRow = \Closure::bind(static fn (array $row): Model => Account::fromRow($row), null, Model::class);
        $account = $fromRow($row);
        self::assertInstanceOf(Account::class, $account);

        return $account;
    }
}
