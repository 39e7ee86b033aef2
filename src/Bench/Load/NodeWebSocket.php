<?php

declare(strict_types=1);

namespace Petrel\Bench\Load;

use Petrel\Bench\SkipException;
use Petrel\Bench\Workspace;

/**
 * WebSocket load from bench/ws-load.mjs on node's `ws` package (installed under
 * tests/Interop/node): `node bench/ws-load.mjs MODE ws://127.0.0.1:PORT/PATH N SECONDS`,
 * which prints one JSON object.
 *
 * Modes: echo (N connections in a send-and-wait-for-the-echo loop: rps = round trips/s,
 * latency of the round trips), hold (opens N connections and holds them idle: rps =
 * handshakes/s while opening, for the server's RSS growth) and fanout (N chat members, one
 * sends, timed until all have it: rps = broadcasts/s, latency of the whole fan-out). Figures
 * beyond LoadResult's (max_ms, held, deliveries_per_s, open_s) go into its extra.
 */
final class NodeWebSocket implements LoadGenerator
{
    public const MODES = ['echo', 'hold', 'fanout'];

    public function __construct(
        private readonly string $script,
        private readonly string $mode,
        private readonly string $path = '/',
    ) {
        if (!\in_array($mode, self::MODES, true)) {
            throw new \InvalidArgumentException("No ws-load mode {$mode}");
        }
    }

    /**
     * The generator for $mode, once node and the ws package are found.
     *
     * @throws SkipException when either is missing
     */
    public static function find(string $root, string $mode, string $path = '/'): self
    {
        if (Workspace::which('node') === null) {
            throw SkipException::missing('node', 'nodejs npm');
        }
        if (!\is_file("{$root}/tests/Interop/node/node_modules/ws/package.json")) {
            throw new SkipException('the ws package is not installed (npm install --prefix tests/Interop/node)');
        }

        return new self("{$root}/bench/ws-load.mjs", $mode, $path);
    }

    public function name(): string
    {
        return 'node';
    }

    public function package(): string
    {
        return 'nodejs';
    }

    /** $url is the server's http:// base (any path is replaced by this generator's). */
    public function command(string $url, int $connections, int $seconds, float $timeout): array
    {
        $host = (string) \parse_url($url, \PHP_URL_HOST);
        $port = \parse_url($url, \PHP_URL_PORT);
        $ws = 'ws://' . $host . ($port === null ? '' : ":{$port}") . $this->path;

        return ['node', $this->script, $this->mode, $ws, (string) $connections, (string) $seconds];
    }

    public function parse(string $output): LoadResult
    {
        $data = null;
        foreach (\array_reverse(\explode("\n", \trim($output))) as $line) {
            if (\str_starts_with($line, '{')) {
                $data = \json_decode($line, true);
                break;
            }
        }
        if (!\is_array($data) || !isset($data['ok'])) {
            throw LoadException::unreadable('node ws-load', $output);
        }
        if ($data['ok'] !== true) {
            throw new LoadException('node ws-load failed: ' . self::text($data['error'] ?? 'no reason given'));
        }
        $number = static fn (string $key): float => \is_numeric($data[$key] ?? null) ? (float) $data[$key] : 0.0;
        $count = match ($this->mode) {
            'echo' => $number('round_trips'),
            'hold' => $number('opened'),
            default => $number('broadcasts'),
        };
        $extra = ['open_s' => $number('open_seconds')] + match ($this->mode) {
            'echo' => ['max_ms' => $number('max_ms')],
            'hold' => ['held' => $number('held')],
            default => ['max_ms' => $number('max_ms'), 'deliveries_per_s' => $number('deliveries_per_s')],
        };

        return new LoadResult($number('rps'), (int) $count, $number('p50_ms'), $number('p90_ms'), $number('p99_ms'),
            (int) $number('errors'), 0, $extra);
    }

    private static function text(mixed $value): string
    {
        return \is_scalar($value) ? (string) $value : \json_encode($value, \JSON_THROW_ON_ERROR);
    }
}
