<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Petrel\Tests\Unit\Web\Model\Fixtures\Account;
use Petrel\Web\Model\Model;
use Petrel\Web\View\Internal\ShortcutAttributeVisitor;
use Petrel\Web\View\Internal\ShortcutGetAttrExpression;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Twig\Environment;
use Twig\Extension\AbstractExtension;
use Twig\Loader\ArrayLoader;

/** `.name` compiled with the shortcut renders what Twig's getAttribute() gives, errors included. */
#[CoversClass(ShortcutAttributeVisitor::class)]
#[CoversClass(ShortcutGetAttrExpression::class)]
final class ShortcutAttributeVisitorTest extends TestCase
{
    private const TEMPLATE = '{{ v.name }}|{{ v.nil }}|{{ v.missing }}|{{ v.name.inner }}|{{ v.timezone is defined ? "tz" }}'
        . '|{{ v.name is defined ? "d" }}|{{ v?.name }}|{{ v.getName }}|{{ v.isAdmin }}|{{ v["name"] }}|{{ attribute(v, "name") }}';

    /** @return iterable<string, array{mixed}> */
    public static function values(): iterable
    {
        yield 'array' => [['name' => 'Ada', 'nil' => null]];
        yield 'nested' => [['name' => new class () {
            public string $inner = 'deep';

            public function __toString(): string
            {
                return 'stringable';
            }
        }]];
        yield 'list' => [['x', 'y']];
        yield 'public properties' => [new class () {
            public string $name = 'Ada';
            public ?string $nil = null;
        }];
        yield 'magic properties, as a Model has' => [new class () {
            /** @var array<string, mixed> */
            private array $data = ['name' => 'Ada', 'nil' => null];

            public function __isset(string $key): bool
            {
                return isset($this->data[$key]);
            }

            public function __get(string $key): mixed
            {
                return $this->data[$key] ?? null;
            }
        }];
        yield 'methods only' => [new class () {
            protected string $name = 'hidden';

            public function getName(): string
            {
                return 'from getName()';
            }

            public function isAdmin(): bool
            {
                return true;
            }
        }];
        yield 'ArrayAccess first' => [new class () implements \ArrayAccess {
            use OffsetName;

            public string $name = 'property';
        }];
        // Models answer directAttribute(); Twig's own lookup where a class reads otherwise.
        yield 'a Model' => [new Account(['name' => 'Ada'])];
        yield 'a loaded Model, casts deferred' => [self::loaded(new Account(), ['id' => '7', 'name' => 'Ada', 'born_at' => '2024-01-02 03:04:05', 'meta' => 'null', 'nil' => null])];
        yield 'a Model with a getter for what it lacks' => [new class (['name' => 'Ada']) extends Model {
            protected static array $fillable = ['name'];

            public function getNil(): string
            {
                return 'from getNil()';
            }
        }];
        yield 'a Model with its own __get()' => [new class (['name' => 'Ada']) extends Model {
            protected static array $fillable = ['name'];

            public function __get(string $key): mixed
            {
                return 'own ' . \var_export(parent::__get($key), true);
            }
        }];
        yield 'a Model with a public property' => [new class (['name' => 'attribute']) extends Model {
            public string $name = 'property';
            protected static array $fillable = ['name'];
        }];
        yield 'a Model that is ArrayAccess' => [new class (['name' => 'attribute']) extends Model implements \ArrayAccess {
            use OffsetName;

            protected static array $fillable = ['name'];
        }];
        yield 'date' => [new \DateTimeImmutable('2024-01-02 03:04:05', new \DateTimeZone('UTC'))];
        yield 'null' => [null];
        yield 'string' => ['Ada'];
    }

    #[DataProvider('values')]
    public function testSameOutputAsTwig(mixed $value): void
    {
        [$twig, $shortcut] = [self::environment(false), self::environment(true)];

        self::assertSame($twig->render('t', ['v' => $value]), $shortcut->render('t', ['v' => $value]));
    }

    #[DataProvider('values')]
    public function testSameOutputOrErrorWithStrictVariables(mixed $value): void
    {
        $results = [];
        foreach ([false, true] as $withShortcut) {
            $twig = self::environment($withShortcut, strict: true, template: '{{ v.name }}|{{ v.nil }}');
            try {
                $results[] = $twig->render('t', ['v' => $value]);
            } catch (\Twig\Error\RuntimeError $error) {
                $results[] = \get_class($error) . ': ' . $error->getMessage();
            }
        }

        self::assertSame($results[0], $results[1]);
    }

    public function testALoadedModelsDeferredCastsAreAppliedAsTwigWouldSeeThem(): void
    {
        $template = '{{ v.born_at|date("Y-m-d H:i") }}|{{ v.meta is null ? "null" }}|{{ v.id + 1 }}';
        foreach ([false, true] as $withShortcut) {
            $model = self::loaded(new Account(), ['id' => '7', 'born_at' => '2024-01-02 03:04:05', 'meta' => 'null']);
            $outputs[] = self::environment($withShortcut, template: $template)->render('t', ['v' => $model]);
        }

        self::assertSame(['2024-01-02 03:04|null|8', '2024-01-02 03:04|null|8'], $outputs);
    }

    public function testOnlyPlainNamesTakeTheShortcut(): void
    {
        $twig = self::environment(true);
        $compiled = $twig->compileSource($twig->getLoader()->getSourceContext('t'));

        // v.name, v.nil, v.missing, v.name and .inner, v.getName, v.isAdmin, attribute(v, "name");
        // not the defined tests, v?.name or v["name"] (which Twig compiles inline itself).
        self::assertSame(8, \substr_count($compiled, 'isset($'), $compiled);
        self::assertSame(8, \substr_count($compiled, '->directAttribute('), $compiled);
    }

    /**
     * $model as find() would return it for $row: loaded, dates and JSON not cast yet.
     *
     * @param array<string, mixed> $row
     */
    private static function loaded(Model $model, array $row): Model
    {
        \Closure::bind(fn () => $this->load($row), $model, Model::class)();

        return $model;
    }

    private static function environment(bool $shortcut, bool $strict = false, string $template = self::TEMPLATE): Environment
    {
        $twig = new Environment(new ArrayLoader(['t' => $template]), ['strict_variables' => $strict, 'use_yield' => true, 'cache' => false]);
        if ($shortcut) {
            // As an extension, as View adds it: added with addNodeVisitor() the compiled class
            // had the plain environment's name, and whichever compiled first served both.
            $twig->addExtension(new class () extends AbstractExtension {
                public function getNodeVisitors(): array
                {
                    return [new ShortcutAttributeVisitor()];
                }
            });
        }

        return $twig;
    }
}
