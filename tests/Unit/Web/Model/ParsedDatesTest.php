<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Model;

use DateTimeImmutable;
use Petrel\Web\Model\Internal\ParsedDates;
use PHPUnit\Framework\TestCase;

/** The memory of parsed date strings gives what parsing would: a new, equal object every time. */
final class ParsedDatesTest extends TestCase
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

    public function testASecondParseIsAnEqualObjectOfItsOwn(): void
    {
        $first = ParsedDates::parse('2024-01-02 09:00:00');
        $second = ParsedDates::parse('2024-01-02 09:00:00');
        self::assertEquals(new DateTimeImmutable('2024-01-02 09:00:00'), $second);
        self::assertNotSame($first, $second);
        self::assertNotSame($second, ParsedDates::parse('2024-01-02 09:00:00'));
    }

    public function testTheDefaultTimezoneIsPartOfTheKey(): void
    {
        \date_default_timezone_set('UTC');
        $utc = ParsedDates::parse('2024-03-04 05:06:07');
        \date_default_timezone_set('Europe/Paris');
        $paris = ParsedDates::parse('2024-03-04 05:06:07');
        self::assertSame('2024-03-04T05:06:07+00:00', $utc->format(\DATE_ATOM));
        self::assertSame('2024-03-04T05:06:07+01:00', $paris->format(\DATE_ATOM));
        \date_default_timezone_set('UTC');
        self::assertSame('2024-03-04T05:06:07+00:00', ParsedDates::parse('2024-03-04 05:06:07')->format(\DATE_ATOM), 'and back');
    }

    public function testStringsThatDependOnTheClockAreParsedEveryTime(): void
    {
        $timeOnly = ParsedDates::parse('10:30');
        self::assertSame((new DateTimeImmutable('today'))->format('Y-m-d'), $timeOnly->format('Y-m-d'));
        $before = ParsedDates::parse('now');
        \usleep(2000);
        self::assertGreaterThan($before, ParsedDates::parse('now'), '"now" is not remembered');
    }

    public function testAnUnparsableStringThrowsAsTheConstructorDoes(): void
    {
        $this->expectException(\Exception::class);
        ParsedDates::parse('2024-13-45 not a date');
    }
}
