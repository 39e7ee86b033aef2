<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model;

use DateTimeImmutable;
use Petrel\Database\Database;
use Petrel\Tests\Unit\Web\Model\Fixtures\Account;
use Petrel\Tests\Unit\Web\Model\Fixtures\BlogPost;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Model\Internal\Cast;
use Petrel\Web\Model\Model;
use Petrel\Web\Model\ModelError;
use Petrel\Web\Model\ModelNotFoundException;
use PHPUnit\Framework\TestCase;

/** Models without a database: mass assignment, casts, dirty tracking, serialisation, SQL. */
final class ModelTest extends TestCase
{
    protected function tearDown(): void
    {
        Model::setDatabase(null);
        Account::setDatabase(null);
    }

    public function testMassAssignmentTakesOnlyFillableAttributes(): void
    {
        $input = ['name' => 'Ada', 'email' => 'ada@example.com', 'is_admin' => true, 'id' => 99, 'password' => 'x'];
        $account = new Account($input);
        self::assertSame(['name' => 'Ada', 'email' => 'ada@example.com'], $account->toArray());
        self::assertNull($account->is_admin);
        self::assertNull($account->key());
        $account->fill(['age' => '42', 'active' => false]);
        self::assertSame(42, $account->age, 'fillable, cast on the way in');
        self::assertFalse(isset($account->active));
        $account->set('active', 1)->set('id', '7');
        self::assertSame([true, 7], [$account->active, $account->key()], 'set() is not restricted');
    }

    public function testCastsOnWrite(): void
    {
        $account = new Account();
        $account->set('score', '1.5');
        $account->set('active', 't');
        $account->set('name', 12);
        $account->set('born_at', '2001-02-03 04:05:06');
        $account->meta = ['tags' => ['a'], 'n' => 1];
        $account->set('balance', 12.5);
        $account->ratio = '0.333';
        self::assertSame(1.5, $account->score);
        self::assertTrue($account->active);
        self::assertSame('12', $account->name);
        self::assertInstanceOf(DateTimeImmutable::class, $account->born_at);
        self::assertSame('2001-02-03 04:05:06', $account->born_at->format('Y-m-d H:i:s'));
        self::assertSame(['tags' => ['a'], 'n' => 1], $account->meta);
        self::assertSame('12.50', $account->balance);
        self::assertSame('0.333', $account->ratio);
        $account->balance = '99999999999999999.5';
        self::assertSame('99999999999999999.50', $account->balance, 'string decimals are padded, not rounded through a float');
        $account->set('age', '3.0');
        self::assertSame(3, $account->age);
        $account->age = null;
        self::assertNull($account->age);
        $account->set('born_at', 0);
        self::assertSame('1970-01-01T00:00:00+00:00', $account->born_at->setTimezone(new \DateTimeZone('UTC'))->format(\DATE_ATOM));
    }

    /**
     * Numbers at the limits keep their digits: an int from digits, never through a float
     * (53 bits); a decimal rounded in decimal (half away from zero, as SQL's DECIMAL), a
     * float written without an exponent; a date keeps its microseconds for the database.
     */
    public function testCastsKeepTheDigitsAtTheLimits(): void
    {
        $account = new Account();
        foreach ([['9223372036854775807', \PHP_INT_MAX], ['-9223372036854775808', \PHP_INT_MIN], [' 7 ', 7], ['007', 7], ['-0', 0], ['3.000', 3], ['1e3', 1000]] as [$in, $out]) {
            $account->set('age', $in);
            self::assertSame($out, $account->age, "int from {$in}");
        }
        foreach ([['12345678901234567.891', '12345678901234567.89'], ['99999999999999999.995', '100000000000000000.00'], ['1.005', '1.01'],
            ['-0.005', '-0.01'], ['-0.001', '0.00'], ['1e3', '1000.00'], [1.005, '1.01']] as [$in, $out]) {
            $account->set('balance', $in);
            self::assertSame($out, $account->balance, 'decimal:2 from ' . \var_export($in, true));
        }
        foreach ([[1e-20, '0.00000000000000000001'], [-1e-16, '-0.0000000000000001'], [1e20, '100000000000000000000'], ['00012.3400', '12.34'], ['-0.0', '0'], [0.1 + 0.2, '0.30000000000000004']] as [$in, $out]) {
            $account->set('ratio', $in);
            self::assertSame($out, $account->ratio, 'decimal from ' . \var_export($in, true));
        }
        self::assertSame('2024-03-10 12:34:56.789000', Cast::toDatabase('datetime', new DateTimeImmutable('2024-03-10 12:34:56.789')));
        self::assertSame('2024-03-10 12:34:56', Cast::toDatabase('datetime', new DateTimeImmutable('2024-03-10 12:34:56')));
    }

    public function testImpossibleCastsAreErrors(): void
    {
        $account = new Account();
        // Out of range or with a fraction a float cannot see: refused, not saturated or rounded.
        foreach ([['age', '9223372036854775808'], ['age', '9007199254740993.4'], ['age', '3.0000000000000001'], ['age', 9.2233720368547758E18], ['age', '1e30'],
            ['age', 'abc'], ['age', '3.7'], ['age', 2.5], ['age', [1]], ['active', 'maybe'], ['score', new \stdClass()], ['born_at', 'not a date'], ['balance', 'ten']] as [$key, $value]) {
            try {
                $account->set($key, $value);
                self::fail("{$key} took " . \get_debug_type($value));
            } catch (ModelError $error) {
                self::assertStringContainsString("\"{$key}\"", $error->getMessage());
            }
        }
        $this->expectException(ModelError::class);
        $this->expectExceptionMessage('Unknown cast "someday"');
        (new BlogPost())->set('when', 'now');
    }

    public function testDirtyTracking(): void
    {
        $account = new Account(['name' => 'Ada']);
        self::assertFalse($account->exists());
        self::assertTrue($account->isDirty());
        self::assertTrue($account->isDirty('name'));
        self::assertFalse($account->isDirty('email'));
        self::assertSame(['name' => 'Ada'], $account->dirty());
    }

    public function testToArrayAndJson(): void
    {
        $account = new Account(['name' => 'Ada', 'meta' => ['x' => 1]]);
        $account->password = 'secret';
        $account->born_at = new DateTimeImmutable('2001-02-03 04:05:06', new \DateTimeZone('+02:00'));
        self::assertSame(['name' => 'Ada', 'meta' => ['x' => 1], 'born_at' => '2001-02-03T04:05:06+02:00'], $account->toArray());
        self::assertSame('{"name":"Ada","meta":{"x":1},"born_at":"2001-02-03T04:05:06+02:00"}', \json_encode($account));
        self::assertSame('secret', $account->password, 'hidden from serialisation only');
        unset($account->password);
        self::assertNull($account->password);
    }

    public function testTableNamesAndDialectFollowTheDatabase(): void
    {
        self::assertSame('accounts', Account::tableName());
        self::assertSame('blog_posts', BlogPost::tableName());
        Model::setDatabase(Database::fromUrl('mysql://u:p@127.0.0.1:1/none')); // no connection is made to build SQL
        Account::setDatabase(Database::fromUrl('pgsql://u:p@127.0.0.1:1/none'));
        self::assertSame(['SELECT * FROM `blog_posts` WHERE `id` = ? LIMIT 1', [3]], BlogPost::where('id', 3)->limit(1)->toSql());
        self::assertSame(['SELECT * FROM "accounts" WHERE "age" > ? AND "name" = ?', [3, 'x']], Account::where('age', '>', 3)->where('name', 'x')->toSql());
        Account::setDatabase(null);
        self::assertSame('mysql', Account::query()->dialect()->name(), 'falls back to the default');
    }

    public function testEachSetDatabaseChangesWhatClassesAlreadyUsedResolveTo(): void
    {
        $mysql = Database::fromUrl('mysql://u:p@127.0.0.1:1/none');
        $pgsql = Database::fromUrl('pgsql://u:p@127.0.0.1:1/none');
        $other = Database::fromUrl('mysql://u:p@127.0.0.1:1/other');
        Model::setDatabase($mysql);
        self::assertSame([$mysql, $mysql], [Account::database(), BlogPost::database()]);
        Account::setDatabase($pgsql);
        self::assertSame([$pgsql, $mysql], [Account::database(), BlogPost::database()]);
        Model::setDatabase($other);
        self::assertSame([$pgsql, $other], [Account::database(), BlogPost::database()], "the subclass's own stays");
        Account::setDatabase(null);
        self::assertSame([$other, $other], [Account::database(), BlogPost::database()]);
        Model::setDatabase(null);
        $this->expectException(ModelError::class);
        Account::database();
    }

    public function testNoDatabaseIsAnError(): void
    {
        $this->expectException(ModelError::class);
        $this->expectExceptionMessage('call Model::setDatabase');
        Account::query();
    }

    public function testNotFoundRendersAs404(): void
    {
        $error = new ModelNotFoundException(Account::class, 5);
        self::assertInstanceOf(NotFound::class, $error);
        self::assertSame(404, $error->getStatus());
        self::assertSame('Account not found', $error->getPublicMessage());
        self::assertSame([Account::class, 5], [$error->model, $error->key]);
    }
}
