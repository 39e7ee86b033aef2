<?php

declare(strict_types=1);

namespace Petrel\Tests\Interop;

use Petrel\Coroutine\Channel;
use Petrel\Socket\StreamSocket;
use Petrel\Tests\Integration\WebSocket\TestServer;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RequiresServices;
use Petrel\WebSocket\Message;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketClient;
use Petrel\WebSocket\WebSocketOptions;

use function Petrel\timeout;

/**
 * Petrel's WebSocket server and client against a peer nobody here wrote: the `ws`
 * package for Node.js (install: npm install --prefix tests/Interop/node). Skipped when
 * node or ws is missing, failed instead under PETREL_REQUIRE_SERVICES=1.
 */
final class WsPackageInteropTest extends AsyncTestCase
{
    use RequiresServices;

    private const NODE_DIR = __DIR__ . '/node';

    protected function setUp(): void
    {
        parent::setUp();
        \exec('node --version 2>/dev/null', $output, $status);
        if ($status !== 0) {
            self::skipUnlessRequired('node is not installed (Node.js 18+ runs the ws interop tests)');
        }
        if (!\is_file(self::NODE_DIR . '/node_modules/ws/package.json')) {
            self::skipUnlessRequired('the ws package is missing: npm install --prefix tests/Interop/node');
        }
    }

    public function testEcho(): void
    {
        $result = $this->runScenario('echo');
        self::assertTrue($result['text'] ?? null, 'text echo');
        self::assertTrue($result['binary'] ?? null, 'binary echo');
        self::assertTrue($result['empty'] ?? null, 'empty message');
        self::assertSame(['code' => 1000, 'reason' => ''], $result['close'] ?? null);
    }

    public function testFragmentedMessagesAreReassembled(): void
    {
        // The server also sends its echoes in 1,000-byte frames: ws reassembles them.
        $result = $this->runScenario('fragments', (new WebSocketOptions())->withOutgoingFrameSize(1000));
        self::assertTrue($result['text'] ?? null, 'text in 4 fragments');
        self::assertTrue($result['splitCharacter'] ?? null, 'a UTF-8 character split between fragments');
        self::assertTrue($result['binary'] ?? null, 'binary in 3 fragments, one empty');
        self::assertSame(1000, $result['close']['code'] ?? null);
    }

    public function testPermessageDeflateIsNegotiatedAndUsedBothWays(): void
    {
        $compressed = [];
        $result = $this->runScenario('compression', null, $compressed);
        self::assertSame([true], $compressed, 'the server negotiated permessage-deflate');
        self::assertStringContainsString('permessage-deflate', (string) ($result['extensions'] ?? ''));
        self::assertTrue($result['echo'] ?? null);
        $plain = $result['plainBytes'] ?? 0;
        self::assertGreaterThan(1_000_000, $plain);
        // 10 × 105 kB of repetitive text each way: compressed, a few kB on the wire.
        self::assertLessThan($plain / 20, $result['bytesWritten'] ?? \PHP_INT_MAX, 'ws compressed what it sent');
        self::assertLessThan($plain / 20, $result['bytesRead'] ?? \PHP_INT_MAX, 'Petrel compressed what it sent');
    }

    public function testPetrelClientAgainstAWsServer(): void
    {
        $this->async(function (): void {
            $server = $this->spawn(['node', 'server.mjs']);
            try {
                $line = timeout(15.0, static fn () => $server['stdout']->readLine("\n"));
                self::assertMatchesRegularExpression('/^PORT \d+\n$/', (string) $line);
                $port = (int) \substr((string) $line, 5);
                $ws = WebSocketClient::connect("ws://127.0.0.1:{$port}/", ['Origin' => 'http://petrel.test']);
                self::assertTrue($ws->isCompressed(), 'permessage-deflate negotiated with ws');
                $big = \str_repeat('petrel ', 50_000);
                foreach ([new Message('hi'), new Message($big), new Message(\random_bytes(100_000), true)] as $message) {
                    $ws->send($message);
                    $echo = $ws->receive(10.0);
                    self::assertSame([$message->binary, $message->data], [$echo?->binary, $echo?->data]);
                }
                $ws->close(1000, 'done');
                self::assertTrue($ws->wasClean());
            } finally {
                \fclose($server['stdin']);
                $server['stdout']->close();
                \proc_close($server['process']);
            }
        });
    }

    /**
     * Runs client.mjs against an echo server and returns what it printed.
     *
     * @param list<bool> $compressed filled with the server side's isCompressed(), per connection
     * @return array<string, mixed>
     */
    private function runScenario(string $scenario, ?WebSocketOptions $options = null, array &$compressed = []): array
    {
        return $this->async(function () use ($scenario, $options, &$compressed): array {
            $seen = Channel::unbounded();
            $echo = static function (WebSocket $ws) use ($seen): void {
                $seen->push($ws->isCompressed());
                foreach ($ws as $message) {
                    $ws->send($message);
                }
            };
            $result = [];
            TestServer::run($echo, function (string $address) use ($scenario, &$result): void {
                $client = $this->spawn(['node', 'client.mjs', "ws://{$address}/echo", $scenario]);
                try {
                    $line = timeout(30.0, static fn () => $client['stdout']->readLine("\n", 1 << 20));
                } finally {
                    \fclose($client['stdin']);
                    $client['stdout']->close();
                    \proc_close($client['process']);
                }
                $result = \json_decode((string) $line, true, 16, \JSON_THROW_ON_ERROR);
                self::assertIsArray($result);
                self::assertTrue($result['ok'] ?? false, (string) $line);
            }, $options);
            while (!$seen->isEmpty()) {
                $compressed[] = $seen->pop();
            }

            return $result;
        }, 40.0);
    }

    /**
     * @param list<string> $command
     * @return array{process: resource, stdin: resource, stdout: StreamSocket}
     */
    private function spawn(array $command): array
    {
        $process = \proc_open($command, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => \STDERR], $pipes, self::NODE_DIR);
        self::assertIsResource($process);

        return ['process' => $process, 'stdin' => $pipes[0], 'stdout' => new StreamSocket($pipes[1], 'node')];
    }
}
