<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Web\View\Internal\ShortcutDateExtension;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Twig\Environment;
use Twig\Extension\CoreExtension;
use Twig\Loader\ArrayLoader;

/** The `date` filter with a memory prints what Twig's prints, whatever changes between calls. */
#[CoversClass(ShortcutDateExtension::class)]
final class ShortcutDateExtensionTest extends TestCase
{
    public function testSameStringsAsTwigsFilterCalledTwice(): void
    {
        $twig = new Environment(new ArrayLoader());
        $core = $twig->getExtension(CoreExtension::class);
        $dates = [
            new \DateTimeImmutable('2024-01-02 09:00:00', new \DateTimeZone('UTC')),
            new \DateTimeImmutable('2024-01-02 09:00:00.250000', new \DateTimeZone('Asia/Tokyo')),
            new \DateTime('2024-03-31 01:30:00', new \DateTimeZone('Europe/Paris')),
            new \DateTimeImmutable('1969-12-31 23:59:59', new \DateTimeZone('UTC')),
        ];
        $formats = ['F j, Y', 'Y-m-d H:i:s T P e', 'H:i:s.u', 'v', 'U', null];
        foreach (['UTC', 'America/New_York'] as $zone) {
            $core->setTimezone($zone);
            $shortcut = new ShortcutDateExtension($twig);
            foreach ($dates as $date) {
                foreach ($formats as $format) {
                    foreach ([1, 2] as $call) {
                        self::assertSame($core->formatDate($date, $format), $shortcut->formatDate($date, $format), "{$zone}, {$format}, call {$call}");
                    }
                    self::assertSame($core->formatDate($date, $format, 'Asia/Kolkata'), $shortcut->formatDate($date, $format, 'Asia/Kolkata'));
                    self::assertSame($core->formatDate($date, $format, false), $shortcut->formatDate($date, $format, false));
                }
            }
        }
    }

    public function testAnotherTwigTimezoneIsNotAnsweredFromMemory(): void
    {
        $twig = new Environment(new ArrayLoader());
        $shortcut = new ShortcutDateExtension($twig);
        $date = new \DateTimeImmutable('2024-01-02 09:00:00', new \DateTimeZone('UTC'));

        $twig->getExtension(CoreExtension::class)->setTimezone('UTC');
        self::assertSame('09:00', $shortcut->formatDate($date, 'H:i'));
        $twig->getExtension(CoreExtension::class)->setTimezone('Europe/Paris');
        self::assertSame('10:00', $shortcut->formatDate($date, 'H:i'));
    }

    public function testFormatsBelowTheSecondAreNeverAnsweredFromMemory(): void
    {
        $twig = new Environment(new ArrayLoader());
        $twig->getExtension(CoreExtension::class)->setTimezone('UTC');
        $shortcut = new ShortcutDateExtension($twig);
        // The same second (the same key), other microseconds.
        $first = new \DateTimeImmutable('2024-01-02 09:00:00.250000', new \DateTimeZone('UTC'));
        $second = new \DateTimeImmutable('2024-01-02 09:00:00.750000', new \DateTimeZone('UTC'));

        foreach (['s.u' => ['00.250000', '00.750000'], 'v' => ['250', '750'], 's' => ['00', '00']] as $format => $expected) {
            self::assertSame($expected, [$shortcut->formatDate($first, $format), $shortcut->formatDate($second, $format)], $format);
        }
    }

    public function testManyDatesPastTheBoundStillPrintTwigsStrings(): void
    {
        $twig = new Environment(new ArrayLoader());
        $core = $twig->getExtension(CoreExtension::class);
        $core->setTimezone('UTC');
        $shortcut = new ShortcutDateExtension($twig);
        foreach ([1, 2] as $round) {
            for ($day = 0; $day < 600; $day += 1) {
                $date = new \DateTimeImmutable("@" . (1_700_000_000 + $day * 86_400));
                foreach (['Y-m-d', 'D'] as $format) {
                    self::assertSame($core->formatDate($date, $format), $shortcut->formatDate($date, $format), "round {$round}, day {$day}");
                }
            }
        }
    }

    public function testOtherValuesGoToTwigsFilter(): void
    {
        $twig = new Environment(new ArrayLoader());
        $twig->getExtension(CoreExtension::class)->setTimezone('UTC');
        $shortcut = new ShortcutDateExtension($twig);

        self::assertSame('2024-01-02', $shortcut->formatDate('2024-01-02 09:00:00', 'Y-m-d'));
        self::assertSame('1970-01-01', $shortcut->formatDate(0, 'Y-m-d'));
        self::assertSame('3 days', $shortcut->formatDate(new \DateInterval('P3D'), '%d days'));
    }

    public function testViewTemplatesUseIt(): void
    {
        $dir = new TemplateDir(['d.twig' => '{{ d|date("F j, Y") }}|{{ d|date(format="Y") }}']);
        try {
            $view = new View($dir->path);
            $date = new \DateTimeImmutable('2024-01-02 09:00:00', new \DateTimeZone('UTC'));
            $view->environment()->getExtension(CoreExtension::class)->setTimezone('UTC');

            self::assertSame('January 2, 2024|2024', $view->render('d.twig', ['d' => $date]));
            self::assertStringContainsString(ShortcutDateExtension::class, $this->compiled($view->environment(), 'd.twig'));
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    private function compiled(Environment $twig, string $name): string
    {
        return $twig->compileSource($twig->getLoader()->getSourceContext($name));
    }
}
