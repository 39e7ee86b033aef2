<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Petrel\Web\Model\Internal\ParsedDates;
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
 * A date a model loaded and has not converted yet (StoredDates) is printed without being
 * made an object at all: `{{ user.created_at|date('F j, Y') }}` with a constant format is
 * compiled to call formatStored() first (ShortcutDateExpression), which finds the string
 * by the one the row held. That string, read in the default timezone, names the instant:
 * those strings are kept by format and stored string, for the default timezone and Twig's
 * as they were when they were made (blog `GET /`: -3,900 instructions a request, the
 * model's clone of a parsed date and the conversion to Twig's timezone not made). Only
 * strings ParsedDates would remember (those that begin with a full date, whatever the
 * clock says), at most 256 as well.
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

    /** The default timezone and Twig's when last asked: the stored strings below were read and formatted in them. */
    private string $storedIn = '';
    private ?\DateTimeZone $storedZone = null;
    /** @var array<string, array<string, string>> format => stored date string => formatted */
    private array $formattedStored = [];
    private int $storedCount = 0;

    public function __construct(private readonly Environment $twig)
    {
    }

    public function getFilters(): array
    {
        return [new TwigFilter('date', [$this, 'formatDate'], ['node_class' => ShortcutDateExpression::class])];
    }

    /**
     * formatDate() of $object's attribute $name, when $object has it as a stored date string
     * (StoredDates); null otherwise, for the template to read the attribute and call
     * formatDate() as usual. A string not printed before is formatted from the attribute
     * (which converts it, and fails as it does for a string that is not a date).
     */
    public function formatStored(mixed $object, string $name, string $format): ?string
    {
        if (!$object instanceof StoredDates || ($stored = $object->storedDate($name)) === null) {
            return null;
        }
        $this->core ??= $this->twig->getExtension(CoreExtension::class);
        $storedIn = \date_default_timezone_get();
        $zone = $this->core->getTimezone();
        if ($storedIn !== $this->storedIn || $zone !== $this->storedZone) {
            [$this->storedIn, $this->storedZone, $this->formattedStored, $this->storedCount] = [$storedIn, $zone, [], 0];
        }
        if (isset($this->formattedStored[$format][$stored])) {
            return $this->formattedStored[$format][$stored];
        }
        $formatted = $this->formatDate($object->directAttribute($name), $format);
        if (ParsedDates::isFixed($stored)) {
            if (++$this->storedCount > self::MAX) {
                [$this->formattedStored, $this->storedCount] = [[], 1];
            }
            $this->formattedStored[$format][$stored] = $formatted;
        }

        return $formatted;
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
