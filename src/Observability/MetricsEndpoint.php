<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Closure;
use Petrel\Process\Sidecar;

/**
 * `--metrics=ADDR`: the master answers `GET /metrics` on ADDR with the workers' figures
 * summed (PrometheusText), from the status each worker sends every second. It runs in the
 * master's select() loop (a Process\Sidecar): non-blocking sockets, a request head of at
 * most 8 KiB, 5 s for it to arrive, one response, then close. Anything but GET /metrics
 * (or /) is a 404. At most MAX_CLIENTS connections wait for their head; a new one past
 * that closes the oldest (a scraper sends its head at once: it is answered on arrival).
 */
final class MetricsEndpoint implements Sidecar
{
    private const MAX_HEAD = 8192;
    private const TIMEOUT = 5.0;
    /**
     * Connections waiting for their head at most. Without a cap, ~1,000 idle connections
     * (a port scan, a broken client retrying) took the master past select()'s 1,024
     * descriptors: stream_select() failed at once every turn, and the master spun at a
     * full core, deaf to its workers' pipes and to every scrape.
     */
    public const MAX_CLIENTS = 64;

    /** @var resource */
    private $listener;
    /** @var array<int, array{resource, string, float}> id => [client, bytes so far, deadline] */
    private array $clients = [];
    private readonly PrometheusText $text;
    private float $observedAt = 0.0;

    /** @throws \RuntimeException if ADDR cannot be bound */
    public function __construct(public readonly string $address)
    {
        $listener = @\stream_socket_server("tcp://{$address}", $code, $message);
        if ($listener === false) {
            throw new \RuntimeException("cannot listen for --metrics on {$address}: {$message}");
        }
        \stream_set_blocking($listener, false);
        $this->listener = $listener;
        $this->text = new PrometheusText();
    }

    /** The address bound ("127.0.0.1:9100"; the real port when ADDR asked for port 0). */
    public function boundAddress(): string
    {
        return (string) \stream_socket_get_name($this->listener, false);
    }

    public function streams(): array
    {
        $now = \microtime(true);
        $streams = [$this->listener];
        foreach ($this->clients as $id => [$client, , $deadline]) {
            if ($deadline < $now) {
                @\fclose($client);
                unset($this->clients[$id]);
            } else {
                $streams[] = $client;
            }
        }

        return $streams;
    }

    public function onReadable(mixed $stream, Closure $status): void
    {
        if ($stream === $this->listener) {
            $client = @\stream_socket_accept($this->listener, 0);
            if ($client !== false) {
                if (\count($this->clients) >= self::MAX_CLIENTS) {
                    $this->closeOldest();
                }
                \stream_set_blocking($client, false);
                $this->clients[(int) $client] = [$client, '', \microtime(true) + self::TIMEOUT];
            }

            return;
        }
        $id = (int) $stream;
        if (!isset($this->clients[$id])) {
            return;
        }
        $data = @\fread($stream, self::MAX_HEAD);
        if ($data === '' && !\feof($stream)) {
            return; // nothing yet (a master that polls calls this unasked: see Sidecar)
        }
        if ($data === false || $data === '') {
            @\fclose($stream);
            unset($this->clients[$id]);

            return;
        }
        $head = $this->clients[$id][1] .= $data;
        if (!\str_contains($head, "\r\n\r\n") && \strlen($head) < self::MAX_HEAD) {
            return;
        }
        unset($this->clients[$id]);
        \stream_set_blocking($stream, true); // a few KiB: fits the socket buffer; 1 s at most otherwise
        \stream_set_timeout($stream, 1);
        @\fwrite($stream, $this->respond($head, $status));
        @\fclose($stream);
    }

    /** Closes the client that has waited longest (the first added: unset() and re-adding keeps that order). */
    private function closeOldest(): void
    {
        $id = \array_key_first($this->clients);
        if ($id !== null) {
            @\fclose($this->clients[$id][0]);
            unset($this->clients[$id]);
        }
    }

    /** Keeps the counters of workers that exit between two scrapes (at most once a second). */
    public function poll(Closure $status): bool
    {
        $now = \microtime(true);
        if ($now - $this->observedAt >= 1.0) {
            $this->observedAt = $now;
            $this->text->observe($status());
        }

        return false;
    }

    public function onWorkerExit(array $worker): void
    {
        $this->text->retire($worker);
    }

    /** @param Closure(): array<string, mixed> $status */
    private function respond(string $head, Closure $status): string
    {
        if (!\preg_match('#^(GET|HEAD) (/metrics|/)(?:\?\S*)? HTTP/1\.[01]\r\n#', $head, $m)) {
            $body = "404 Not Found: GET /metrics\n";
            $type = 'text/plain; charset=utf-8';
            $line = '404 Not Found';
        } else {
            $body = $this->text->render($status());
            $type = PrometheusText::CONTENT_TYPE;
            $line = '200 OK';
        }
        $headers = "HTTP/1.1 {$line}\r\nContent-Type: {$type}\r\nContent-Length: " . \strlen($body) . "\r\nConnection: close\r\n\r\n";

        return ($m[1] ?? 'GET') === 'HEAD' ? $headers : $headers . $body;
    }
}
