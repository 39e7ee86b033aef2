<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\Internal\HttpDate;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** HTTP-date: the three forms a recipient reads, and an RFC 850 date's two-digit year. */
#[CoversClass(HttpDate::class)]
final class HttpDateTest extends TestCase
{
    /** @return iterable<string, array{string, int|null}> */
    public static function dates(): iterable
    {
        yield 'IMF-fixdate' => ['Sun, 06 Nov 1994 08:49:37 GMT', 784_111_777];
        yield 'RFC 850' => ['Sunday, 06-Nov-94 08:49:37 GMT', 784_111_777];
        yield 'asctime' => ['Sun Nov  6 08:49:37 1994', 784_111_777];
        yield 'surrounding blanks' => [" \tSun, 06 Nov 1994 08:49:37 GMT ", 784_111_777];
        yield 'wrong weekday' => ['Mon, 06 Nov 1994 08:49:37 GMT', null];
        yield 'RFC 850, wrong weekday' => ['Monday, 06-Nov-94 08:49:37 GMT', null];
        yield 'RFC 850, short weekday' => ['Sun, 06-Nov-94 08:49:37 GMT', null];
        yield 'RFC 850, no such month' => ['Sunday, 06-Nox-94 08:49:37 GMT', null];
        yield 'RFC 850, month name across two' => ['Sunday, 06-anF-94 08:49:37 GMT', null];
        yield 'RFC 850, hour 24' => ['Sunday, 06-Nov-94 24:49:37 GMT', null];
        yield 'RFC 850, trailing newline' => ["Sunday, 06-Nov-94 08:49:37 GMT\n", null];
        yield 'overflowing day' => ['Thu, 31 Feb 1994 08:49:37 GMT', null];
        yield 'lower case' => ['sun, 06 nov 1994 08:49:37 gmt', null];
        yield 'not GMT' => ['Sun, 06 Nov 1994 08:49:37 UTC', null];
        yield 'what strtotime() reads' => ['tomorrow', null];
        yield 'empty' => ['', null];
    }

    #[DataProvider('dates')]
    public function testParse(string $value, ?int $expected): void
    {
        self::assertSame($expected, HttpDate::parse($value, \gmmktime(12, 0, 0, 5, 1, 2026)));
    }

    /**
     * @return iterable<string, array{string, string, int|null}> an RFC 850 date, now (UTC), and
     *     the time it is (null: not a date: its weekday is that of the other century)
     */
    public static function twoDigitYears(): iterable
    {
        $now = '2026-05-01 12:00:00';
        yield 'this year' => ['Friday, 01-May-26 12:00:00 GMT', $now, \gmmktime(12, 0, 0, 5, 1, 2026)];
        yield '00 is 2000' => ['Saturday, 01-Jan-00 00:00:00 GMT', $now, \gmmktime(0, 0, 0, 1, 1, 2000)];
        yield '94 is 1994' => ['Sunday, 06-Nov-94 08:49:37 GMT', $now, 784_111_777];
        // PHP's own window (70-99 are 19xx) read these a century early.
        yield '70 is 2070, 44 years ahead' => ['Wednesday, 01-Jan-70 00:00:00 GMT', $now, \gmmktime(0, 0, 0, 1, 1, 2070)];
        yield '70 with 1970\'s weekday' => ['Thursday, 01-Jan-70 00:00:00 GMT', $now, null];
        yield 'exactly 50 years ahead is ahead' => ['Friday, 01-May-76 12:00:00 GMT', $now, \gmmktime(12, 0, 0, 5, 1, 2076)];
        yield 'exactly 50 years ahead with 1976\'s weekday' => ['Saturday, 01-May-76 12:00:00 GMT', $now, null];
        // "More than 50 years in the future" is the most recent past year with those digits.
        yield 'a second more is the past' => ['Saturday, 01-May-76 12:00:01 GMT', $now, \gmmktime(12, 0, 1, 5, 1, 1976)];
        yield 'a second more with 2076\'s weekday' => ['Friday, 01-May-76 12:00:01 GMT', $now, null];
        yield '77 is 1977, 51 years ahead' => ['Saturday, 01-Jan-77 00:00:00 GMT', $now, \gmmktime(0, 0, 0, 1, 1, 1977)];
        yield '29 February 2000' => ['Tuesday, 29-Feb-00 00:00:00 GMT', $now, \gmmktime(0, 0, 0, 2, 29, 2000)];
        // Late in a century, small digits are the next one.
        $late = '2090-06-01 00:00:00';
        yield '10 in 2090 is 2110' => ['Saturday, 15-Mar-10 00:00:00 GMT', $late, \gmmktime(0, 0, 0, 3, 15, 2110)];
        yield '10 in 2090 with 2010\'s weekday' => ['Monday, 15-Mar-10 00:00:00 GMT', $late, null];
        yield 'exactly 50 years ahead in 2090' => ['Wednesday, 01-Jun-40 00:00:00 GMT', $late, \gmmktime(0, 0, 0, 6, 1, 2140)];
        yield 'a second more in 2090' => ['Friday, 01-Jun-40 00:00:01 GMT', $late, \gmmktime(0, 0, 1, 6, 1, 2040)];
        yield '90 in 2090 is 2090' => ['Thursday, 01-Jun-90 00:00:00 GMT', $late, \gmmktime(0, 0, 0, 6, 1, 2090)];
        yield '29 February 2100 does not exist' => ['Tuesday, 29-Feb-00 00:00:00 GMT', '2060-01-01 00:00:00', null];
    }

    /**
     * Before, "y" read 70-99 as 19xx whenever it was: "70" was 1970 in 2026 (and a date with
     * 2070's weekday was refused), where the RFC makes it 2070.
     */
    #[DataProvider('twoDigitYears')]
    public function testAnRfc850YearIsTheLatestNotMoreThanFiftyYearsAhead(string $value, string $now, ?int $expected): void
    {
        $nowTime = (new \DateTimeImmutable($now, new \DateTimeZone('UTC')))->getTimestamp();
        self::assertSame($expected, HttpDate::parse($value, $nowTime));
    }

    public function testNowIsTheClockUnlessGiven(): void
    {
        $inAYear = \time() + 365 * 86_400;
        self::assertSame($inAYear, HttpDate::parse(\gmdate('l, d-M-y H:i:s', $inAYear) . ' GMT'));
    }

    public function testFormatIsImfFixdate(): void
    {
        self::assertSame('Sun, 06 Nov 1994 08:49:37 GMT', HttpDate::format(784_111_777));
    }
}
