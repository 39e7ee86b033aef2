<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Observability\MetricsEndpoint;
use PHPUnit\Framework\TestCase;

/** The /metrics sidecar driven as the master's loop drives it: streams(), then onReadable(). */
final class MetricsEndpointTest extends TestCase
{
    /** @var list<resource> */
    private array $clients = [];

    protected function tearDown(): void
    {
        foreach ($this->clients as $client) {
            @\fclose($client);
        }
    }

    public function testAScrapeIsAnsweredAndAnythingElseIsA404(): void
    {
        $endpoint = new MetricsEndpoint('127.0.0.1:0');
        self::assertStringStartsWith("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4", $this->scrape($endpoint, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
        self::assertStringStartsWith('HTTP/1.1 404 Not Found', $this->scrape($endpoint, "GET /other HTTP/1.1\r\n\r\n"));
    }

    /**
     * Idle connections were kept without a limit until their 5 s ran out: ~1,000 of them
     * took the master past select()'s 1,024 descriptors, and it spun without hearing its
     * workers or answering a scrape. They are capped; the oldest makes room, and a scraper
     * is answered as before.
     */
    public function testIdleConnectionsAreCappedAndTheOldestMakesRoom(): void
    {
        $endpoint = new MetricsEndpoint('127.0.0.1:0');
        for ($i = 0; $i < MetricsEndpoint::MAX_CLIENTS + 40; $i++) {
            $this->accept($endpoint, $this->connect($endpoint));
        }
        self::assertCount(1 + MetricsEndpoint::MAX_CLIENTS, $endpoint->streams(), 'the listener and MAX_CLIENTS clients: the master selects on no more');
        $oldest = $this->clients[0];
        \stream_set_timeout($oldest, 1);
        self::assertSame('', \fread($oldest, 100), 'the oldest idle connection was closed');
        self::assertTrue(\feof($oldest));

        self::assertStringStartsWith('HTTP/1.1 200 OK', $this->scrape($endpoint, "GET /metrics HTTP/1.1\r\n\r\n"), 'a scrape still gets through');
    }

    /**
     * A master past select()'s FD_SETSIZE polls: it calls onReadable() for every stream,
     * whether something came or not. A call on a client that had sent nothing yet closed it
     * (a read of nothing taken for its end): the scrape got no answer.
     */
    public function testACallWithNothingToReadKeepsTheClient(): void
    {
        $endpoint = new MetricsEndpoint('127.0.0.1:0');
        $endpoint->onReadable($endpoint->streams()[0], static fn (): array => []); // nobody to accept
        $client = $this->connect($endpoint);
        $accepted = $this->accept($endpoint, $client);
        $endpoint->onReadable($accepted, static fn (): array => []);
        self::assertContains($accepted, $endpoint->streams(), 'the client is still watched');
        \fwrite($client, "GET /metrics HTTP/1.1\r\n\r\n");
        \usleep(50_000);
        $endpoint->onReadable($accepted, static fn (): array => ['workers' => [], 'restarts' => []]);
        \stream_set_timeout($client, 2);
        self::assertStringStartsWith('HTTP/1.1 200 OK', (string) \stream_get_contents($client));
    }

    private function scrape(MetricsEndpoint $endpoint, string $head): string
    {
        $client = $this->connect($endpoint);
        \fwrite($client, $head);
        $accepted = $this->accept($endpoint, $client);
        $endpoint->onReadable($accepted, static fn (): array => ['workers' => [], 'restarts' => []]);
        \stream_set_timeout($client, 2);

        return (string) \stream_get_contents($client);
    }

    /** @return resource */
    private function connect(MetricsEndpoint $endpoint): mixed
    {
        $client = \stream_socket_client('tcp://' . $endpoint->boundAddress(), $code, $message, 2);
        self::assertIsResource($client, $message);
        $this->clients[] = $client;

        return $client;
    }

    /**
     * Hands the listener to the endpoint as the master does when it is readable, and
     * returns the endpoint's end of $client's connection (the stream it now watches).
     *
     * @param resource $client
     * @return resource
     */
    private function accept(MetricsEndpoint $endpoint, mixed $client): mixed
    {
        $before = $endpoint->streams();
        $listener = $before[0];
        $read = [$listener];
        $write = $except = null;
        self::assertSame(1, \stream_select($read, $write, $except, 2), 'the connection is there to accept');
        $endpoint->onReadable($listener, static fn (): array => []);
        $new = \array_values(\array_udiff($endpoint->streams(), $before, static fn (mixed $a, mixed $b): int => (int) $a <=> (int) $b));
        self::assertCount(1, $new, 'one client accepted');
        \assert(\is_resource($new[0]) && \is_resource($client));

        return $new[0];
    }
}
