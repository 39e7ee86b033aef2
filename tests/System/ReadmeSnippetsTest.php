<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Every ```php block of README.md is executed, so the README cannot drift from the code.
 * What the line before a block says decides how:
 *
 * - `<!-- snippet: not run (why) -->`: only checked to compile (php -l); the reason is required.
 * - `<!-- snippet: app GET /path -->`: an APP file; it is loaded as `bin/petrel start` would
 *   load it and must answer that request with 200.
 * - nothing: a script, run in its own process; it must exit 0 and print exactly what the
 *   ```text block after "It prints:" right below it shows, or nothing when there is none.
 */
final class ReadmeSnippetsTest extends TestCase
{
    private const README = __DIR__ . '/../../README.md';

    /** @return array<string, array{string, string, ?string}> "line N" => [marker, code, expected output] */
    public static function snippets(): array
    {
        $lines = \file(self::README, \FILE_IGNORE_NEW_LINES) ?: [];
        $snippets = [];
        for ($i = 0, $n = \count($lines); $i < $n; $i++) {
            if ($lines[$i] !== '```php') {
                continue;
            }
            $start = $i + 1;
            $marker = $i > 0 ? \trim($lines[$i - 1]) : '';
            for ($i++; $i < $n && $lines[$i] !== '```'; $i++);
            $code = \implode("\n", \array_slice($lines, $start, $i - $start)) . "\n";
            $snippets["README.md line {$start}"] = [$marker, $code, self::outputAfter($lines, $i + 1)];
        }

        return $snippets;
    }

    public function testTheReadmeHasRunnableSnippets(): void
    {
        $kinds = \array_map(static fn (array $s): string => self::kind($s[0])[0], self::snippets());
        self::assertContains('script', $kinds);
        self::assertContains('app', $kinds);
    }

    #[DataProvider('snippets')]
    public function testSnippet(string $marker, string $code, ?string $expected): void
    {
        [$kind, $argument] = self::kind($marker);
        $file = \tempnam(\sys_get_temp_dir(), 'petrel-readme-') . '.php';
        \file_put_contents($file, (\str_starts_with($code, '<?php') ? '' : "<?php\n") . $code);
        try {
            [$exit, $output] = self::php(['-l', $file]);
            self::assertSame(0, $exit, "The snippet does not compile:\n{$output}");
            if ($kind === 'not run') {
                self::assertNotSame('', $argument, 'A snippet that is not run says why: <!-- snippet: not run (why) -->');
                self::assertNull($expected, 'A snippet that is not run shows no output');

                return;
            }
            [$exit, $output] = $kind === 'app' ? self::runApp($file, $argument) : self::php([$file]);
            self::assertSame(0, $exit, "The snippet failed:\n{$output}");
            if ($kind === 'app') {
                self::assertStringStartsWith("200\n", $output, "The APP did not answer {$argument} with 200:\n{$output}");

                return;
            }
            self::assertSame(\rtrim($expected ?? ''), \rtrim($output), 'What the snippet prints is not what the README shows');
        } finally {
            @\unlink($file);
            @\unlink(\substr($file, 0, -4));
        }
    }

    /** @return array{string, string} [script|app|not run, the rest of the marker] */
    private static function kind(string $marker): array
    {
        if (\preg_match('/^<!-- snippet: (app|not run)\b\s*(.*?)\s*-->$/', $marker, $m) !== 1) {
            return ['script', ''];
        }
        $argument = $m[1] === 'app' ? (string) \preg_replace('/\s*\(.*\)$/', '', $m[2]) : \trim($m[2], ' ()');

        return [$m[1], $argument];
    }

    /**
     * The ```text block after a line ending in "It prints:" that follows the block.
     *
     * @param list<string> $lines
     */
    private static function outputAfter(array $lines, int $i): ?string
    {
        for (; $i < \count($lines) && \trim($lines[$i]) === ''; $i++);
        if (!\str_ends_with(\trim($lines[$i] ?? ''), 'It prints:')) {
            return null;
        }
        for ($i++; $i < \count($lines) && \trim($lines[$i]) === ''; $i++);
        if (($lines[$i] ?? '') !== '```text') {
            return null;
        }
        $start = $i + 1;
        for ($i++; $i < \count($lines) && $lines[$i] !== '```'; $i++);

        return \implode("\n", \array_slice($lines, $start, $i - $start)) . "\n";
    }

    /**
     * Loads $file as an APP and sends it "METHOD /target"; prints the status, then the body.
     *
     * @return array{int, string} exit code, output
     */
    private static function runApp(string $file, string $request): array
    {
        [$method, $target] = \explode(' ', $request . ' /', 2);
        $runner = '<?php require ' . \var_export(\dirname(__DIR__, 2) . '/vendor/autoload.php', true) . ';'
            . ' echo Petrel\run(static function () { $app = require ' . \var_export($file, true) . ';'
            . ' $request = Petrel\Http\Request::create(' . \var_export($method, true) . ', ' . \var_export(\trim($target), true) . ');'
            . ' $response = $app instanceof Petrel\Http\RequestHandler ? $app->handle($request) : $app($request);'
            . ' return $response->getStatus() . "\n" . (is_string($response->getBody()) ? $response->getBody() : ""); });';
        $path = $file . '.run.php';
        \file_put_contents($path, $runner);
        try {
            return self::php([$path]);
        } finally {
            @\unlink($path);
        }
    }

    /**
     * Runs PHP on $arguments with the project's autoloader preloaded, DATABASE_URL unset (the
     * README's defaults), in a private directory; at most 30 s.
     *
     * @param list<string> $arguments
     * @return array{int, string} exit code, stdout and stderr
     */
    private static function php(array $arguments): array
    {
        $prepend = $arguments[0] === '-l' ? [] : ['-d', 'auto_prepend_file=' . \dirname(__DIR__, 2) . '/vendor/autoload.php'];
        $env = \array_diff_key(\getenv(), ['DATABASE_URL' => true, 'REDIS_URL' => true]);
        $process = \proc_open(
            ['timeout', '30', \PHP_BINARY, ...$prepend, ...$arguments],
            [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], // @phpstan-ignore argument.type (stderr into stdout is valid)
            $pipes,
            \sys_get_temp_dir(),
            $env,
        );
        self::assertIsResource($process);
        $output = (string) \stream_get_contents($pipes[1]);
        \fclose($pipes[1]);

        return [\proc_close($process), $output];
    }
}
