<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\Session\Internal\JsonValue;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\Session;
use Petrel\Web\Session\SessionError;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

use function Petrel\go;

#[CoversClass(Session::class)]
#[CoversClass(SessionId::class)]
#[CoversClass(JsonValue::class)]
final class SessionTest extends AsyncTestCase
{
    public function testUntouchedSessionNeverReachesTheStore(): void
    {
        $store = new SpyStore();
        $session = new Session($store, SessionId::generate());

        self::assertFalse($session->isStarted());
        self::assertNull($session->save());
        self::assertSame([], $store->calls);
    }

    public function testValuesRoundTripThroughTheStore(): void
    {
        $store = new SpyStore();
        $first = new Session($store);
        $first->set('user', ['id' => 7, 'roles' => ['admin'], 'score' => 1.0, 'name' => 'Zoë']);
        $first->set('count', 1);
        self::assertTrue($first->isStarted());
        self::assertTrue($first->isDirty());
        $id = $first->save();
        self::assertIsString($id);
        self::assertSame($first->id(), $id);
        self::assertFalse($first->isDirty());

        $second = new Session($store, $id);
        self::assertTrue($second->has('user'));
        self::assertSame(['id' => 7, 'roles' => ['admin'], 'score' => 1.0, 'name' => 'Zoë'], $second->get('user'));
        self::assertSame(1, $second->get('count'));
        self::assertSame('fallback', $second->get('missing', 'fallback'));
        self::assertFalse($second->has('missing'));
        self::assertSame(['user', 'count'], \array_keys($second->all()));
        self::assertFalse($second->isDirty());
        self::assertNull($second->save(), 'unchanged and freshly stored: nothing to write');
        self::assertSame(["write {$id}", "read {$id}"], $store->calls);
    }

    public function testRemoveAndClear(): void
    {
        $session = new Session(new SpyStore());
        $session->set('a', 1);
        $session->set('b', 2);
        $session->remove('a');
        $session->remove('never-set');
        self::assertSame(['b' => 2], $session->all());

        $session->flash('notice', 'hi');
        $session->clear();
        self::assertSame([], $session->all());
        self::assertNull($session->save(), 'an empty new session is not stored and needs no cookie');
    }

    public function testAnUnknownIdIsNotAdopted(): void
    {
        $store = new SpyStore();
        $forged = SessionId::generate();
        $session = new Session($store, $forged);
        $session->set('x', 1);

        self::assertNotSame($forged, $session->id());
        self::assertSame($session->id(), $session->save());
        self::assertSame([$forged], $store->callsOf('read'));
        self::assertNull($store->inner->read($forged));
    }

    /** @return iterable<string, array{string}> */
    public static function malformedIds(): iterable
    {
        $valid = SessionId::generate();
        yield 'empty' => [''];
        yield 'too short' => [\substr($valid, 1)];
        yield 'too long' => [$valid . 'A'];
        yield 'padding' => [\substr($valid, 1) . '='];
        yield 'base64 alphabet' => ['+' . \substr($valid, 1)];
        yield 'path' => ['../../../../etc/passwd' . \str_repeat('a', 21)];
        yield 'redis key pattern' => [\str_repeat('*', 43)];
        yield 'NUL' => [\substr($valid, 1) . "\0"];
        yield 'non-ASCII' => ['é' . \substr($valid, 2)];
    }

    #[DataProvider('malformedIds')]
    public function testMalformedIdsAreNeverLookedUp(string $id): void
    {
        $store = new SpyStore();
        $session = new Session($store, $id);

        self::assertNull($session->get('x'));
        self::assertSame([], $store->calls);
        self::assertTrue(SessionId::isValid($session->id()));
        self::assertNull($session->save());
    }

    public function testIdsAre32RandomBytesInBase64url(): void
    {
        $ids = [];
        for ($i = 0; $i < 200; $i++) {
            $id = SessionId::generate();
            self::assertMatchesRegularExpression('/^[A-Za-z0-9_-]{43}$/D', $id);
            self::assertSame(32, \strlen((string) \base64_decode(\strtr($id, '-_', '+/'), true)));
            self::assertTrue(SessionId::isValid($id));
            $ids[$id] = true;
        }
        self::assertCount(200, $ids);
    }

    public function testRegenerateIdKeepsTheValuesAndDeletesTheOldId(): void
    {
        $store = new SpyStore();
        $before = new Session($store);
        $before->set('cart', [1, 2]);
        $old = (string) $before->save();

        $session = new Session($store, $old);
        $session->regenerateId();
        $session->set('user', 7);
        $session->regenerateId(); // twice in one request: only the stored id needs deleting
        $new = $session->save();

        self::assertIsString($new);
        self::assertNotSame($old, $new);
        self::assertNull($store->inner->read($old));
        self::assertSame(['cart' => [1, 2], 'user' => 7], (new Session($store, $new))->all());
        self::assertSame([$old], $store->callsOf('destroy'));
    }

    public function testFlashValuesLastForTheNextLoadOnly(): void
    {
        $store = new SpyStore();
        $first = new Session($store);
        $first->set('keep', true);
        $first->flash('notice', 'Saved!');
        self::assertNull($first->getFlash('notice'), 'flashed for the next request, not this one');
        $id = (string) $first->save();

        $second = new Session($store, $id);
        self::assertSame('Saved!', $second->getFlash('notice'));
        self::assertSame(['keep' => true], $second->all(), 'flash values are not plain values');
        self::assertTrue($second->isDirty(), 'reading the session consumes its flash values');
        self::assertSame($id, $second->save());

        $third = new Session($store, $id);
        self::assertNull($third->getFlash('notice'));
        self::assertSame('default', $third->getFlash('notice', 'default'));
    }

    public function testASessionHoldingOnlyFlashValuesIsDeletedOnceTheyAreRead(): void
    {
        $store = new SpyStore();
        $first = new Session($store);
        $first->flash('error', 'Wrong password');
        $id = (string) $first->save();

        $second = new Session($store, $id);
        self::assertSame('Wrong password', $second->getFlash('error'));
        self::assertSame('', $second->save(), 'empty now: delete the cookie');
        self::assertNull($store->inner->read($id));
    }

    public function testAnActiveSessionIsRewrittenOnlyWhenItsStoredCopyAges(): void
    {
        $store = new SpyStore();
        $id = SessionId::generate();
        $store->inner->write($id, ['data' => ['a' => 1], 'flash' => [], 'at' => \time()], 100);
        $fresh = new Session($store, $id, ttl: 100);
        self::assertSame(1, $fresh->get('a'));
        self::assertNull($fresh->save());

        $store->inner->write($id, ['data' => ['a' => 1], 'flash' => [], 'at' => \time() - 11], 100);
        $aged = new Session($store, $id, ttl: 100);
        self::assertSame(1, $aged->get('a'));
        self::assertSame($id, $aged->save(), 'older than a tenth of the TTL: written again to extend it');
        self::assertSame([$id], $store->callsOf('write'), 'only the aged copy was written (the fresh one was not)');
    }

    /** Two requests that loaded session $id save in turn: one adds a cart and drops the theme, the other counts a visit. */
    private static function saveInTurn(Session $tab, Session $fetch, string $id): void
    {
        $tab->set('cart', [7]);
        $tab->remove('theme');
        self::assertSame($id, $tab->save());
        $fetch->set('seen', 2);
        self::assertSame($id, $fetch->save());
    }

    public function testConcurrentRequestsKeepEachOthersKeys(): void
    {
        $store = new SpyStore();
        $id = self::stored($store, ['seen' => 1, 'theme' => 'dark']);
        $tab = new Session($store, $id);
        $fetch = new Session($store, $id);
        self::assertSame(1, $tab->get('seen'));
        self::assertSame(1, $fetch->get('seen'));

        self::saveInTurn($tab, $fetch, $id);

        $stored = $store->inner->read($id);
        self::assertSame(['seen' => 2, 'cart' => [7]], $stored['data'] ?? null, 'the cart and the removal survive the later save');
    }

    public function testAnAtomicStoreGetsTheMergeAsOneUpdate(): void
    {
        $store = new UpdatingSpyStore();
        $id = SessionId::generate();
        $store->inner->write($id, ['data' => ['seen' => 1, 'theme' => 'dark'], 'flash' => ['notice' => 'Hi'], 'at' => 0], 60);
        $tab = new Session($store, $id);
        $fetch = new Session($store, $id);
        self::assertSame('Hi', $tab->getFlash('notice'));
        self::assertSame(1, $fetch->get('seen'));

        self::saveInTurn($tab, $fetch, $id);
        $stored = $store->inner->read($id);
        self::assertSame(['seen' => 2, 'cart' => [7]], $stored['data'] ?? null);
        self::assertSame([], $stored['flash'] ?? null, 'read by the first tab');
        $fetch->clear();
        self::assertSame('', $fetch->save(), 'emptied: the cookie is deleted');
        self::assertNull($store->inner->read($id));

        self::assertSame(["read {$id}", "read {$id}", "update {$id}", "update {$id}", "update {$id}"], $store->calls, 'no read+write pair a concurrent save could come between');
    }

    public function testTheSameKeySetTwiceIsTheLastSave(): void
    {
        $store = new SpyStore();
        $id = self::stored($store, ['n' => 0]);
        $first = new Session($store, $id);
        $second = new Session($store, $id);
        $first->set('n', 1);
        $second->set('n', 2);
        $second->save();
        $first->save();

        self::assertSame(['n' => 1], $store->inner->read($id)['data'] ?? null);
    }

    public function testASessionDestroyedMeanwhileIsNotBroughtBack(): void
    {
        $store = new SpyStore();
        $id = self::stored($store, ['user' => 42]);
        $slow = new Session($store, $id);
        self::assertSame(42, $slow->get('user'));
        $logout = new Session($store, $id);
        $logout->clear();
        self::assertSame('', $logout->save(), 'emptied: deleted, and its cookie too');

        $slow->set('cart', [7]);
        self::assertSame($id, $slow->save());
        self::assertSame(['cart' => [7]], $store->inner->read($id)['data'] ?? null, 'the user is not logged in again');
    }

    public function testClearReplacesKeysWrittenMeanwhile(): void
    {
        $store = new SpyStore();
        $id = self::stored($store, ['user' => 42]);
        $logout = new Session($store, $id);
        $logout->get('user');
        $other = new Session($store, $id);
        $other->set('cart', [7]);
        $other->save();

        $logout->clear();
        $logout->set('goodbye', true);
        $logout->save();
        self::assertSame(['goodbye' => true], $store->inner->read($id)['data'] ?? null);
    }

    public function testFlashValuesOfConcurrentRequestsAreKept(): void
    {
        $store = new SpyStore();
        $id = self::stored($store, ['user' => 42], ['notice' => 'Welcome']);
        $page = new Session($store, $id);
        self::assertSame('Welcome', $page->getFlash('notice'));
        $form = new Session($store, $id);
        $form->flash('error', 'Wrong password');
        $form->save();

        $page->save();
        $stored = $store->inner->read($id);
        self::assertSame(['error' => 'Wrong password'], $stored['flash'] ?? null, 'the notice read is gone, the error flashed meanwhile stays');
        self::assertSame('Welcome', $page->getFlash('notice'), 'still readable for the rest of the request');
    }

    public function testARefreshOfAnAgedCopyKeepsKeysWrittenMeanwhile(): void
    {
        $store = new SpyStore();
        $id = SessionId::generate();
        $store->inner->write($id, ['data' => ['a' => 1], 'flash' => [], 'at' => \time() - 11], 100);
        $aged = new Session($store, $id, ttl: 100);
        self::assertSame(1, $aged->get('a'));
        $other = new Session($store, $id, ttl: 100);
        $other->set('b', 2);
        $other->save();

        self::assertSame($id, $aged->save(), 'aged: written again to extend it');
        self::assertSame(['a' => 1, 'b' => 2], $store->inner->read($id)['data'] ?? null);
    }

    /**
     * @param array<string, mixed> $data
     * @param array<string, mixed> $flash
     */
    private static function stored(SpyStore $store, array $data, array $flash = []): string
    {
        $id = SessionId::generate();
        $store->inner->write($id, ['data' => $data, 'flash' => $flash, 'at' => \time()], 100);

        return $id;
    }

    public function testCorruptStoredDataStartsEmpty(): void
    {
        $store = new SpyStore();
        $id = SessionId::generate();
        $store->inner->write($id, ['data' => 'not an array', 'flash' => 5], 100);

        $session = new Session($store, $id);
        self::assertSame([], $session->all());
        self::assertNull($session->getFlash('x'));
        self::assertSame($id, $session->id());
    }

    /** @return iterable<string, array{mixed, string}> */
    public static function nonJsonValues(): iterable
    {
        yield 'object' => [new \stdClass(), 'stdClass'];
        yield 'closure' => [static fn () => 1, 'Closure'];
        yield 'binary string' => ["\xff\xfe", 'not valid UTF-8'];
        yield 'INF' => [\INF, 'non-finite'];
        yield 'NAN' => [\NAN, 'non-finite'];
        yield 'nested object' => [['list' => [1, new \ArrayObject()]], 'x.list.1'];
        yield 'binary key' => [["\xff" => 1], 'key that is not valid UTF-8'];
    }

    #[DataProvider('nonJsonValues')]
    public function testValuesThatJsonCannotHoldAreRefused(mixed $value, string $message): void
    {
        $session = new Session(new SpyStore());
        try {
            $session->set('x', $value);
            self::fail('Expected a SessionError');
        } catch (SessionError $e) {
            self::assertStringContainsString($message, $e->getMessage());
        }
        $this->expectException(SessionError::class);
        $session->flash('x', $value);
    }

    public function testCoroutinesOfOneRequestLoadTheSessionOnce(): void
    {
        $store = new SpyStore(readDelay: 0.01);
        $id = SessionId::generate();
        $store->inner->write($id, ['data' => ['n' => 5], 'flash' => [], 'at' => \time()], 100);
        $session = new Session($store, $id);

        $values = $this->async(static function () use ($session): array {
            $readers = [];
            for ($i = 0; $i < 5; $i++) {
                $readers[] = go(static fn (): mixed => $session->get('n'));
            }

            return \array_map(static fn ($c): mixed => $c->join(), $readers);
        });

        self::assertSame([5, 5, 5, 5, 5], $values);
        self::assertSame([$id], $store->callsOf('read'));
    }

    public function testFromWithoutMiddlewareIsMisuse(): void
    {
        $this->expectException(SessionError::class);
        $this->expectExceptionMessage('SessionMiddleware');
        Session::from();
    }

    public function testTtlMustBePositive(): void
    {
        $this->expectException(SessionError::class);
        new Session(new SpyStore(), null, 0);
    }
}
