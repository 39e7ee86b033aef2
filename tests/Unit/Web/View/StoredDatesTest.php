<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Tests\Unit\Web\Model\Fixtures\Account;
use Petrel\Web\Model\Model;
use Petrel\Web\View\Internal\ShortcutDateExpression;
use Petrel\Web\View\Internal\ShortcutDateExtension;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Twig\Extension\CoreExtension;

/**
 * `{{ model.date|date(format) }}` printed from the string the row held, without the model
 * converting its date: the same output as the converted date through Twig's filter,
 * whichever timezones, and the same errors.
 */
#[CoversClass(ShortcutDateExpression::class)]
#[CoversClass(ShortcutDateExtension::class)]
final class StoredDatesTest extends TestCase
{
    private const TEMPLATE = '{{ v.born_at|date("Y-m-d H:i:s.u T") }}|{{ v.born_at|date("F j, Y") }}';

    private string $timezone;
    private TemplateDir $dir;

    protected function setUp(): void
    {
        $this->timezone = \date_default_timezone_get();
        $this->dir = new TemplateDir([
            't.twig' => self::TEMPLATE,
            // The same filter, no shortcut: the format is not a constant.
            'plain.twig' => '{{ v.born_at|date(f1) }}|{{ v.born_at|date(f2) }}',
            'bad.twig' => "line 1\n{{ v.born_at|date('Y') }}",
            'bad-plain.twig' => "line 1\n{{ v.born_at|date(f) }}",
        ]);
    }

    protected function tearDown(): void
    {
        \date_default_timezone_set($this->timezone);
        TemplateDir::remove($this->dir->path);
    }

    public function testPrintsWhatTheConvertedDatePrintsAndLeavesItStored(): void
    {
        $view = new View($this->dir->path);
        $stored = ['2024-01-02 03:04:05', '2024-01-02 03:04:05.250000', '2024-03-31 02:30:00', '2024-01-02T03:04:05+05:30', '1969-12-31 23:59:59'];
        foreach (['UTC', 'Europe/Paris', 'America/New_York'] as $twigZone) {
            $view->environment()->getExtension(CoreExtension::class)->setTimezone($twigZone);
            foreach (['UTC', 'Asia/Tokyo', 'Europe/Paris'] as $defaultZone) {
                \date_default_timezone_set($defaultZone);
                foreach ($stored as $string) {
                    // A print not in memory converts the model's date, so the next print of it in
                    // another format is not remembered either: one format more each render.
                    foreach ([1, 2, 3] as $render) {
                        $model = self::loaded(['born_at' => $string]);
                        $output = $view->render('t.twig', ['v' => $model]);
                        self::assertSame($render === 3 ? $string : null, $model->storedDate('born_at'), 'printed from memory, not converted');
                        $expected = $view->render('plain.twig', ['v' => $model, 'f1' => 'Y-m-d H:i:s.u T', 'f2' => 'F j, Y']);
                        self::assertNull($model->storedDate('born_at'), 'converted by the filter without the shortcut');
                        self::assertSame($expected, $output, "{$string}, default {$defaultZone}, Twig {$twigZone}, render {$render}");
                    }
                }
            }
        }
    }

    public function testEitherTimezoneChangedAloneIsNotAnsweredFromMemory(): void
    {
        \date_default_timezone_set('UTC');
        $view = new View($this->dir->path);
        $core = $view->environment()->getExtension(CoreExtension::class);
        $core->setTimezone('UTC');
        $print = static fn (): string => $view->render('t.twig', ['v' => self::loaded(['born_at' => '2024-01-02 23:30:00'])]);
        self::assertSame(['2024-01-02 23:30:00.000000 UTC|January 2, 2024'], \array_unique([$print(), $print(), $print()]));

        $core->setTimezone('Europe/Paris');
        self::assertSame('2024-01-03 00:30:00.000000 CET|January 3, 2024', $print());
        \date_default_timezone_set('Asia/Tokyo'); // stored strings are read in it: 14:30 UTC
        self::assertSame('2024-01-02 15:30:00.000000 CET|January 2, 2024', $print());
    }

    public function testAConvertedOrChangedDateAndOtherValuesTakeTheUsualWay(): void
    {
        \date_default_timezone_set('UTC');
        $view = new View($this->dir->path);
        $view->environment()->getExtension(CoreExtension::class)->setTimezone('UTC');
        $expected = '2024-01-02 03:04:05.000000 UTC|January 2, 2024';

        $read = self::loaded(['born_at' => '2024-01-02 03:04:05']);
        self::assertInstanceOf(\DateTimeImmutable::class, $read->born_at); // converted
        $changed = self::loaded(['born_at' => '2023-05-06 07:08:09']);
        $changed->set('born_at', '2024-01-02 03:04:05');
        $values = [$read, $changed, new Account(), ['born_at' => '2024-01-02 03:04:05'], ['born_at' => new \DateTimeImmutable('2024-01-02 03:04:05')]];
        $values[2]->set('born_at', '2024-01-02 03:04:05');
        foreach ($values as $i => $value) {
            self::assertSame($expected, $view->render('t.twig', ['v' => $value]), "value {$i}");
        }
    }

    public function testAStringThatDependsOnTheClockIsNotPrintedFromMemory(): void
    {
        $view = new View($this->dir->path);
        $outputs = [];
        foreach ([1, 2] as $render) {
            $outputs[] = $view->render('t.twig', ['v' => self::loaded(['born_at' => 'now'])]);
            \usleep(2_000);
        }

        self::assertNotSame($outputs[0], $outputs[1]);
    }

    public function testManyStoredDatesPastTheBoundStillPrintTheirOwn(): void
    {
        \date_default_timezone_set('UTC');
        $view = new View($this->dir->path);
        $view->environment()->getExtension(CoreExtension::class)->setTimezone('UTC');
        foreach ([1, 2] as $round) {
            for ($day = 0; $day < 600; ++$day) {
                $string = \gmdate('Y-m-d H:i:s', 1_700_000_000 + $day * 86_400);
                $expected = \gmdate('Y-m-d H:i:s', 1_700_000_000 + $day * 86_400) . '.000000 UTC|' . \gmdate('F j, Y', 1_700_000_000 + $day * 86_400);
                self::assertSame($expected, $view->render('t.twig', ['v' => self::loaded(['born_at' => $string])]), "round {$round}, day {$day}");
            }
        }
    }

    public function testABadStoredDateFailsAsWithoutTheShortcut(): void
    {
        $view = new View($this->dir->path);
        $errors = [];
        foreach (['bad.twig' => ['f' => 'Y'], 'bad-plain.twig' => ['f' => 'Y']] as $name => $data) {
            try {
                $view->render($name, $data + ['v' => self::loaded(['born_at' => 'not a date'])]);
                self::fail('a bad stored date was printed');
            } catch (\Twig\Error\RuntimeError $error) {
                $errors[] = [$error::class, $error->getRawMessage(), $error->getTemplateLine(), $error->getPrevious()?->getMessage()];
            }
        }

        self::assertSame([\Twig\Error\RuntimeError::class, 2, 'Attribute "born_at" is not a date: "not a date"'], [$errors[0][0], $errors[0][2], $errors[0][3]]);
        self::assertSame($errors[1], $errors[0]);
    }

    public function testOnlyAConstantFormatOnAPlainAttributeIsCompiledWithIt(): void
    {
        $dir = new TemplateDir(['c.twig' => '{{ v.born_at|date("Y") }}|{{ v.born_at|date(f) }}|{{ v|date("Y") }}|{{ v.born_at|date("Y", "UTC") }}|{{ v?.born_at|date("Y") }}']);
        try {
            $twig = (new View($dir->path))->environment();
            $compiled = $twig->compileSource($twig->getLoader()->getSourceContext('c.twig'));
            self::assertSame(2, \substr_count($compiled, '->formatStored('), $compiled); // the first print, in doDisplay() and petrelDisplay()
        } finally {
            TemplateDir::remove($dir->path);
        }
    }

    /** @param array<string, mixed> $row */
    private static function loaded(array $row): Account
    {
        $model = new Account();
        \Closure::bind(fn () => $this->load($row), $model, Model::class)();

        return $model;
    }
}
