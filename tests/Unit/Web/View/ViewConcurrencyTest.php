<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\View\View;
use PHPUnit\Framework\Attributes\CoversClass;
use Twig\Environment;
use Twig\Loader\ArrayLoader;
use Twig\TwigFunction;

use function Petrel\go;
use function Petrel\sleep;

/** Requests render concurrently in one worker; their data and output must stay apart. */
#[CoversClass(View::class)]
final class ViewConcurrencyTest extends AsyncTestCase
{
    public function testConcurrentRendersThatSuspendKeepTheirOwnDataAndOutput(): void
    {
        $view = new View(__DIR__ . '/templates', globals: ['app_name' => 'Petrel']);
        $view->addFunction('pause', static function (int $ms): string {
            sleep($ms / 1000); // a render that waits on I/O, as a lazy DB value would

            return '';
        });
        $level = \ob_get_level();

        $outputs = $this->async(static function () use ($view): array {
            $coroutines = [];
            for ($i = 0; $i < 20; $i++) {
                // Later coroutines wait less, so they overtake earlier ones mid-render.
                $coroutines[$i] = go(static fn (): string => $view->render('concurrent.html.twig', [
                    'name' => "user{$i}",
                    'delay' => 20 - $i,
                ]));
            }

            return \array_map(static fn ($c): mixed => $c->join(), $coroutines);
        });

        self::assertSame($level, \ob_get_level());
        foreach ($outputs as $i => $html) {
            self::assertSame("[user{$i}:1][user{$i}:2][user{$i}:3]<li class=\"user\">user{$i}</li>\n", $html);
        }
    }

    /**
     * Why View turns on Twig's use_yield: without it Twig renders through ob_start(), whose
     * buffers are per process, so a render that suspends writes into another request's
     * buffer. (Twig 3 default; Twig 4 only has the yield mode.)
     */
    public function testOutputBufferingTwigWouldMixConcurrentRequests(): void
    {
        $twig = new Environment(new ArrayLoader(['t' => '{{ name }}-{{ pause(ms) }}{{ name }};']), ['use_yield' => false]);
        $twig->addFunction(new TwigFunction('pause', static function (int $ms): string {
            sleep($ms / 1000);

            return '';
        }));

        [$a, $b] = $this->async(static function () use ($twig): array {
            $first = go(static fn (): string => $twig->render('t', ['name' => 'A', 'ms' => 10]));
            $second = go(static fn (): string => $twig->render('t', ['name' => 'B', 'ms' => 20]));

            return [$first->join(), $second->join()];
        });

        // A's buffer is opened first, B's on top; A ends first and takes the top one (B's).
        self::assertSame(['B-A;', 'A-B;'], [$a, $b]);
    }
}
