<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Error;

use Petrel\Web\Error\BadRequest;
use Petrel\Web\Error\Conflict;
use Petrel\Web\Error\Forbidden;
use Petrel\Web\Error\HttpError;
use Petrel\Web\Error\MethodNotAllowed;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Error\TooManyRequests;
use Petrel\Web\Error\Unauthorized;
use Petrel\Web\Error\UnprocessableEntity;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(HttpError::class)]
#[CoversClass(NotFound::class)]
#[CoversClass(MethodNotAllowed::class)]
#[CoversClass(BadRequest::class)]
#[CoversClass(Unauthorized::class)]
#[CoversClass(Forbidden::class)]
#[CoversClass(Conflict::class)]
#[CoversClass(UnprocessableEntity::class)]
#[CoversClass(TooManyRequests::class)]
final class HttpErrorTest extends TestCase
{
    public function testDefaultsToTheReasonPhrase(): void
    {
        $previous = new \LogicException('secret');
        $error = new HttpError(418, '', ['X-Tea' => 'earl grey'], $previous);
        self::assertInstanceOf(\RuntimeException::class, $error);
        self::assertSame(418, $error->getStatus());
        self::assertSame(418, $error->getCode());
        self::assertSame("I'm a teapot", $error->getPublicMessage());
        self::assertSame("I'm a teapot", $error->getMessage());
        self::assertSame(['X-Tea' => 'earl grey'], $error->getHeaders());
        self::assertSame($previous, $error->getPrevious());

        self::assertSame('No such user', (new HttpError(404, 'No such user'))->getPublicMessage());
        self::assertSame('Error', (new HttpError(499))->getPublicMessage());
    }

    #[DataProvider('invalidStatuses')]
    public function testRejectsNonErrorStatuses(int $status): void
    {
        $this->expectException(\ValueError::class);
        new HttpError($status);
    }

    /** @return iterable<array{int}> */
    public static function invalidStatuses(): iterable
    {
        yield [200];
        yield [302];
        yield [399];
        yield [600];
    }

    /** @return iterable<string, array{HttpError, int, string}> */
    public static function subclasses(): iterable
    {
        yield 'not found' => [new NotFound(), 404, 'Not Found'];
        yield 'bad request' => [new BadRequest('Bad JSON'), 400, 'Bad JSON'];
        yield 'unauthorized' => [new Unauthorized(), 401, 'Unauthorized'];
        yield 'forbidden' => [new Forbidden(), 403, 'Forbidden'];
        yield 'conflict' => [new Conflict(), 409, 'Conflict'];
        yield 'unprocessable' => [new UnprocessableEntity(), 422, 'Unprocessable Content'];
        yield 'too many' => [new TooManyRequests(), 429, 'Too Many Requests'];
        yield 'method' => [new MethodNotAllowed(['GET']), 405, 'Method Not Allowed'];
    }

    #[DataProvider('subclasses')]
    public function testSubclassesCarryTheirStatus(HttpError $error, int $status, string $message): void
    {
        self::assertSame($status, $error->getStatus());
        self::assertSame($message, $error->getPublicMessage());
    }

    public function testMethodNotAllowedSetsAllow(): void
    {
        $error = new MethodNotAllowed(['get', 'HEAD', 'post', 'GET']);
        self::assertSame(['GET', 'HEAD', 'POST'], $error->getAllowedMethods());
        self::assertSame(['Allow' => 'GET, HEAD, POST'], $error->getHeaders());
    }

    public function testTooManyRequestsSetsRetryAfter(): void
    {
        self::assertSame(['Retry-After' => '30'], (new TooManyRequests(30))->getHeaders());
        self::assertSame([], (new TooManyRequests())->getHeaders());
        $this->expectException(\ValueError::class);
        new TooManyRequests(-1);
    }

    public function testUnprocessableEntityCarriesErrors(): void
    {
        $errors = ['email' => ['The email field is required.']];
        $error = new UnprocessableEntity($errors, 'Invalid input');
        self::assertSame($errors, $error->getErrors());
        self::assertSame('Invalid input', $error->getPublicMessage());
    }

    public function testUnauthorizedTakesAChallenge(): void
    {
        $error = new Unauthorized('', ['WWW-Authenticate' => 'Bearer realm="api"']);
        self::assertSame(['WWW-Authenticate' => 'Bearer realm="api"'], $error->getHeaders());
    }
}
