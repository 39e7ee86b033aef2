<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Environment;
use Twig\Extension\AbstractExtension;
use Twig\Extension\CoreExtension;
use Twig\TwigFilter;

/**
 * Twig's `date` filter with a memory: a date formatted before is not formatted again. A
 * page shows the same dates on every request (blog `GET /`: the member's sign-up date), and
 * Twig's filter converts the date to its timezone (a new object) and formats it: ~5,000
 * instructions, where finding the string again costs ~1,500.
 *
 * What `{{ d|date(format) }}` prints depends on the instant, the timezone Twig converts to
 * and the format, nothing else: the strings are kept by format and Unix timestamp (whole
 * seconds), for Twig's timezone as it was when they were made, and forgotten when it
 * changes (CoreExtension::setTimezone()). Two array keys rather than one string made of
 * the three: building that string cost ~600 instructions a call. A format with `u` or `v`
 * (microseconds, milliseconds) is never kept, so it is only looked for in a miss. That,
 * and everything but a DateTimeInterface with a format and no timezone argument (strings,
 * DateInterval, the default format, `date(format, tz)`), goes to Twig's filter every time.
 * At most 256 strings, then it starts afresh.
 *
 * @internal registered by View
 */
final class ShortcutDateExtension extends AbstractExtension
{
    private const MAX = 256;

    private ?CoreExtension $core = null;

    /** Twig's timezone when last asked: the strings below were formatted in it. */
    private ?\DateTimeZone $zone = null;

    /** @var array<string, array<int, string>> format => Unix timestamp => formatted */
    private array $formatted = [];
    private int $count = 0;

    public function __construct(private readonly Environment $twig)
    {
    }

    public function getFilters(): array
    {
        return [new TwigFilter('date', [$this, 'formatDate'])];
    }

    /** CoreExtension::formatDate()'s parameters (named arguments too) and result. */
    public function formatDate(mixed $date, ?string $format = null, mixed $timezone = null): string
    {
        $this->core ??= $this->twig->getExtension(CoreExtension::class);
        if (!$date instanceof \DateTimeInterface || $format === null || $timezone !== null) {
            return $this->core->formatDate($date, $format, $timezone);
        }
        $zone = $this->core->getTimezone();
        if ($zone !== $this->zone) { // set again (CoreExtension::setTimezone()), or the first time
            [$this->zone, $this->formatted, $this->count] = [$zone, [], 0];
        }
        $timestamp = $date->getTimestamp();
        if (isset($this->formatted[$format][$timestamp])) {
            return $this->formatted[$format][$timestamp];
        }
        if (\strpbrk($format, 'uv') !== false) {
            return $this->core->formatDate($date, $format);
        }
        if (++$this->count > self::MAX) {
            [$this->formatted, $this->count] = [[], 1];
        }

        return $this->formatted[$format][$timestamp] = $this->core->formatDate($date, $format);
    }
}
