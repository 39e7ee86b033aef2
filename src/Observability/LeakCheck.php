<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\App;
use Petrel\Web\Container\Container;

/**
 * `--leak-check` (development): a request handler around the APP that, after each request,
 * compares what request code may leave behind in a resident worker with the state before
 * it, and reports growth once per site, with the request that did it:
 *
 *     GET /users grew App\Repo::$cache (static) from 3 to 4 entries
 *
 * It looks at the static properties of the APP's classes (not Petrel's, not vendor/'s),
 * at globals (a new one, or one that grew), and at the array properties of the singletons
 * of a Web\App's container. Size is the number of entries of an array (counted
 * recursively) or of a Countable. A request is judged only when no other request of the
 * worker ran meanwhile (in coroutine mode they interleave), so send them one at a time.
 * Costs a walk over those properties per request: not for production.
 */
final class LeakCheck implements RequestHandler
{
    /** @var array<string, true> sites reported */
    private array $reported = [];
    /** @var array<string, true> sites whose measuring threw: skipped */
    private array $unmeasurable = [];
    private int $running = 0;
    private int $started = 0;
    /** @var list<\ReflectionProperty> static properties of the APP's classes */
    private array $statics = [];
    private int $classCount = 0;
    private readonly string $petrelSource;

    /** @param Closure(string): void|null $report Log::warning() by default */
    public function __construct(private readonly RequestHandler $inner, private readonly ?Closure $report = null)
    {
        $this->petrelSource = \dirname(__DIR__) . \DIRECTORY_SEPARATOR;
    }

    public function handle(Request $request): Response
    {
        $generation = ++$this->started;
        $before = null;
        try {
            if ($this->running++ === 0) {
                $before = $this->measure();
            }

            return $this->inner->handle($request);
        } finally {
            --$this->running;
            if ($before !== null && $generation === $this->started) {
                $this->compare($before, $this->measure(), "{$request->getMethod()} {$request->getTarget()}");
            }
        }
    }

    /**
     * @param array<string, int> $before
     * @param array<string, int> $after
     */
    private function compare(array $before, array $after, string $request): void
    {
        foreach ($after as $site => $size) {
            $was = $before[$site] ?? null;
            if (($was !== null && $size <= $was) || isset($this->reported[$site])) {
                continue;
            }
            if ($was === null && !\str_ends_with($site, '(global)')) {
                continue; // a class loaded or a singleton made by this request: warm-up, not growth
            }
            $this->reported[$site] = true;
            $message = $was === null
                ? "{$request} created {$site}: it stays in the worker for every later request"
                : "{$request} grew {$site} from {$was} to {$size} " . ($size === 1 ? 'entry' : 'entries');
            $this->say($message . ' (--leak-check: state kept across requests in a resident worker; reported once per site)');
        }
    }

    private function say(string $message): void
    {
        $this->report !== null ? ($this->report)($message) : Log::warning($message);
    }

    /** @return array<string, int> site => size */
    private function measure(): array
    {
        $sizes = [];
        foreach ($this->staticProperties() as $property) {
            if ($property->isInitialized()) {
                $this->measureSite($sizes, "{$property->class}::\${$property->name} (static)", $property->getValue());
            }
        }
        foreach ($GLOBALS as $name => $value) {
            if (!\in_array($name, ['GLOBALS', '_GET', '_POST', '_COOKIE', '_FILES', '_SERVER', '_ENV', '_REQUEST', '_SESSION', 'argv', 'argc'], true)) {
                $this->measureSite($sizes, "\${$name} (global)", $value, 1);
            }
        }
        if ($this->inner instanceof App && ($container = $this->inner->container()) instanceof Container) {
            /** @var array<string, mixed> $instances */
            $instances = (fn (): array => $this->instances)->call($container);
            foreach ($instances as $id => $instance) {
                if (\is_object($instance) && !$instance instanceof Closure && $this->isUserCode((string) (new \ReflectionClass($instance))->getFileName())) {
                    foreach ((array) $instance as $key => $value) {
                        $this->measureSite($sizes, $id . '->$' . \substr((string) $key, (int) \strrpos("\0" . $key, "\0")) . ' (singleton in the container)', $value);
                    }
                }
            }
        }

        return $sizes;
    }

    /** @return list<\ReflectionProperty> static properties of user classes outside Petrel and vendor/ */
    private function staticProperties(): array
    {
        $classes = \get_declared_classes();
        if (\count($classes) === $this->classCount) {
            return $this->statics;
        }
        $this->classCount = \count($classes);
        $this->statics = [];
        foreach ($classes as $class) {
            $reflection = new \ReflectionClass($class);
            if (!$this->isUserCode((string) $reflection->getFileName())) {
                continue;
            }
            foreach ($reflection->getProperties(\ReflectionProperty::IS_STATIC) as $property) {
                if ($property->class === $class) {
                    $this->statics[] = $property;
                }
            }
        }

        return $this->statics;
    }

    /** Whether $file is the APP's code: not Petrel's, not under vendor/, not built in (''). */
    private function isUserCode(string $file): bool
    {
        return $file !== '' && !\str_starts_with($file, $this->petrelSource) && !\str_contains($file, \DIRECTORY_SEPARATOR . 'vendor' . \DIRECTORY_SEPARATOR);
    }

    /**
     * Adds $site's size to $sizes ($unsized for a value with no size; left out when null).
     * Measuring runs the APP's code (Countable::count()): if it throws, the site is noted
     * once and skipped from then on, so neither the request nor later checks fail.
     *
     * @param array<string, int> $sizes
     */
    private function measureSite(array &$sizes, string $site, mixed $value, ?int $unsized = null): void
    {
        if (isset($this->unmeasurable[$site])) {
            return;
        }
        try {
            $size = self::size($value) ?? $unsized;
        } catch (\Throwable $e) {
            $this->unmeasurable[$site] = true;
            $this->say("cannot measure {$site}: " . $e::class . ": {$e->getMessage()} (--leak-check skips it from now on)");

            return;
        }
        if ($size !== null) {
            $sizes[$site] = $size;
        }
    }

    /**
     * Entries of an array (recursively, up to 100,000) or a Countable; null for anything else.
     * An array that holds a reference to itself is counted up to the recursion: count()'s
     * "Recursion detected" warning is the check's own business, not the APP's (it went to
     * the APP's error handler, or printed two warnings pointing into Petrel per request).
     */
    private static function size(mixed $value): ?int
    {
        if (\is_array($value)) {
            $count = \count($value);
            if ($count > 100_000) {
                return $count;
            }
            \set_error_handler(static fn (): bool => true, \E_WARNING);
            try {
                return \count($value, \COUNT_RECURSIVE);
            } finally {
                \restore_error_handler();
            }
        }

        return $value instanceof \Countable ? \count($value) : null;
    }
}
