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
 * and the format, nothing else: the key is the timezone's name, the Unix timestamp (whole
 * seconds) and the format. A format with `u` or `v` (microseconds, milliseconds)
 * and everything but a DateTimeInterface with a format and no timezone argument (strings,
 * DateInterval, the default format, `date(format, tz)`) go to Twig's filter every time. At
 * most 256 strings, then it starts afresh.
 *
 * @internal registered by View
 */
final class ShortcutDateExtension extends AbstractExtension
{
    private const MAX = 256;

    private ?CoreExtension $core = null;

    /** Twig's timezone when last asked, and its name: a DateTimeZone does not change. */
    private ?\DateTimeZone $zone = null;
    private string $zoneName = '';

    /** @var array<string, string> timezone "\0" timestamp "\0" format => formatted */
    private array $formatted = [];

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
        if (!$date instanceof \DateTimeInterface || $format === null || $timezone !== null || \strpbrk($format, 'uv') !== false) {
            return $this->core->formatDate($date, $format, $timezone);
        }
        $zone = $this->core->getTimezone();
        if ($zone !== $this->zone) { // set again (CoreExtension::setTimezone()), or the first time
            [$this->zone, $this->zoneName] = [$zone, $zone->getName()];
        }
        $key = $this->zoneName . "\0" . $date->getTimestamp() . "\0" . $format;
        if (isset($this->formatted[$key])) {
            return $this->formatted[$key];
        }
        if (\count($this->formatted) >= self::MAX) {
            $this->formatted = [];
        }

        return $this->formatted[$key] = $this->core->formatDate($date, $format);
    }
}
