<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisConfig;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;
use Petrel\Tests\Support\RequiresServices;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketClient;
use PHPUnit\Framework\TestCase;

use function Petrel\run;

/**
 * examples/chat/app.php as users run it: `bin/petrel start` processes, clients through
 * real sockets. In-process broadcast with one worker; with Redis, two instances of two
 * workers each behind one nginx, every client hearing every message.
 */
final class ChatTest extends TestCase
{
    use RequiresServices;

    private const APP = __DIR__ . '/../../examples/chat/app.php';

    /** @var list<PetrelProcess> */
    private array $servers = [];

    /** @var resource|null */
    private $nginx = null;

    private ?string $nginxDir = null;

    protected function tearDown(): void
    {
        try {
            if (\is_resource($this->nginx)) {
                \proc_terminate($this->nginx, \SIGTERM);
                \proc_close($this->nginx);
            }
            if ($this->nginxDir !== null) {
                \exec('rm -rf ' . \escapeshellarg($this->nginxDir));
            }
        } finally {
            foreach ($this->servers as $server) {
                try {
                    $server->stop();
                } catch (\RuntimeException) {
                    // its destructor kills it
                }
            }
        }
    }

    public function testOneWorkerWithoutRedisBroadcastsInProcess(): void
    {
        $server = $this->start(['--workers=1'], null);
        $page = RawHttp::get($server->address, '/');
        self::assertSame(200, $page->status);
        self::assertStringContainsString('<title>Petrel chat</title>', $page->body);
        self::assertStringContainsString('const shared = false;', $page->body);
        [$received, $pids] = $this->chat(["ws://{$server->address}/chat", "ws://{$server->address}/chat", "ws://{$server->address}/chat"]);
        self::assertCount(1, \array_unique($pids));
        foreach ($received as $messages) {
            \sort($messages);
            self::assertSame(['client 0 says hi', 'client 1 says hi', 'client 2 says hi'], $messages);
        }
        self::assertStringNotContainsString('warning', $server->log());
    }

    public function testSeveralWorkersWithoutRedisWarnAtStart(): void
    {
        $server = $this->start(['--workers=2'], null);
        PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'REDIS_URL is not set'), 10.0, 'the warning');
        self::assertStringContainsString('messages reach only the clients of the same worker', $server->log());
    }

    public function testTwoInstancesBehindNginxShareMessagesThroughRedis(): void
    {
        $redisUrl = (string) \getenv('REDIS_URL');
        $why = self::probeService('REDIS_URL', static function () use ($redisUrl): void {
            RedisConnection::connect(RedisConfig::fromUrl($redisUrl))->close();
        });
        if ($why !== '') {
            self::skipUnlessRequired("Redis is needed: {$why}");
        }
        $nginx = $this->which('nginx') ?? self::skipUnlessRequired('nginx is not installed');
        $a = $this->start(['--workers=2'], $redisUrl);
        $b = $this->start(['--workers=2'], $redisUrl);
        PetrelProcess::waitFor(static fn (): bool => \count($a->workerPids()) === 2 && \count($b->workerPids()) === 2, 15.0, 'the workers');
        $proxy = $this->startNginx($nginx, [$a->address, $b->address]);
        $urls = \array_fill(0, 8, "ws://{$proxy}/chat");
        [$received, $pids] = $this->chat($urls);
        self::assertNotEmpty(\array_intersect($pids, $a->workerPids()), 'no client landed on instance A');
        self::assertNotEmpty(\array_intersect($pids, $b->workerPids()), 'no client landed on instance B');
        $expected = \array_map(static fn (int $i): string => "client {$i} says hi", \range(0, 7));
        foreach ($received as $i => $messages) {
            \sort($messages);
            self::assertSame($expected, $messages, "client {$i}");
        }
    }

    /**
     * Connects a client to each URL, waits for every welcome, has each send one message,
     * and collects what each receives until it has one message per client.
     *
     * @param list<string> $urls
     * @return array{array<int, list<string>>, list<int>} texts received per client, the worker pid of each
     */
    private function chat(array $urls): array
    {
        return run(static function () use ($urls): array {
            /** @var list<WebSocket> $clients */
            $clients = [];
            $pids = [];
            foreach ($urls as $i => $url) {
                $ws = WebSocketClient::connect($url . "?name=client{$i}");
                $welcome = \json_decode((string) $ws->receive(10.0)?->data, true);
                self::assertIsArray($welcome);
                self::assertSame('welcome', $welcome['type']);
                $pids[] = (int) $welcome['pid'];
                $clients[] = $ws;
            }
            foreach ($clients as $i => $ws) {
                $ws->send(\json_encode(['text' => "client {$i} says hi"], \JSON_THROW_ON_ERROR));
            }
            try {
                return [self::receiveAll($clients), $pids];
            } finally {
                foreach ($clients as $ws) {
                    $ws->close();
                }
            }
        });
    }

    /**
     * @param list<WebSocket> $clients
     * @return array<int, list<string>> the texts each received, until one per client
     */
    private static function receiveAll(array $clients): array
    {
        $received = [];
        foreach ($clients as $i => $ws) {
            $received[$i] = [];
            while (\count($received[$i]) < \count($clients)) {
                $message = $ws->receive(10.0);
                self::assertNotNull($message, "client {$i} was disconnected: {$ws->getCloseCode()} {$ws->getCloseReason()}");
                $data = \json_decode($message->data, true);
                self::assertIsArray($data);
                self::assertSame('message', $data['type'], $message->data);
                self::assertSame(\str_replace(' says hi', '', $data['text']), \str_replace('client', 'client ', $data['name']), 'the sender\'s name');
                $received[$i][] = (string) $data['text'];
            }
        }

        return $received;
    }

    /** @param list<string> $options */
    private function start(array $options, ?string $redisUrl): PetrelProcess
    {
        $saved = \getenv('REDIS_URL');
        \putenv($redisUrl === null ? 'REDIS_URL' : "REDIS_URL={$redisUrl}");
        try {
            $server = new PetrelProcess(self::APP, [...$options, '--graceful-timeout=5']);
            $this->servers[] = $server;

            return $server->start();
        } finally {
            \putenv($saved === false ? 'REDIS_URL' : "REDIS_URL={$saved}");
        }
    }

    /**
     * nginx on a free port proxying WebSocket connections to $upstreams round-robin, with
     * its own config and temp paths.
     *
     * @param list<string> $upstreams
     */
    private function startNginx(string $binary, array $upstreams): string
    {
        $port = PetrelProcess::freePort();
        $dir = $this->nginxDir = \sys_get_temp_dir() . '/petrel-chat-nginx-' . \bin2hex(\random_bytes(4));
        \mkdir($dir);
        $servers = \implode("\n", \array_map(static fn (string $u): string => "        server {$u};", $upstreams));
        \file_put_contents("{$dir}/nginx.conf", <<<CONF
            worker_processes 1;
            pid {$dir}/nginx.pid;
            error_log {$dir}/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path {$dir}/body;
                proxy_temp_path {$dir}/proxy;
                fastcgi_temp_path {$dir}/fastcgi;
                uwsgi_temp_path {$dir}/uwsgi;
                scgi_temp_path {$dir}/scgi;
                upstream chat {
            {$servers}
                }
                map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
                server {
                    listen 127.0.0.1:{$port};
                    location / {
                        proxy_pass http://chat;
                        proxy_http_version 1.1;
                        proxy_set_header Upgrade \$http_upgrade;
                        proxy_set_header Connection \$connection_upgrade;
                        proxy_set_header Host \$host;
                        proxy_read_timeout 1h;
                    }
                }
            }

            CONF);
        $nginx = \proc_open(
            [$binary, '-e', "{$dir}/error.log", '-c', "{$dir}/nginx.conf", '-p', $dir, '-g', 'daemon off;'],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', "{$dir}/stderr.log", 'w']],
            $pipes,
        );
        $this->nginx = \is_resource($nginx) ? $nginx : throw new \RuntimeException('cannot start nginx');
        $address = "127.0.0.1:{$port}";
        PetrelProcess::waitFor(static function () use ($address): bool {
            $socket = @\stream_socket_client("tcp://{$address}", $errno, $error, 1.0);
            if ($socket === false) {
                return false;
            }
            \fclose($socket);

            return true;
        }, 10.0, "nginx on {$address} (" . @\file_get_contents("{$dir}/error.log") . ')');

        return $address;
    }

    private function which(string $command): ?string
    {
        $path = \trim((string) \shell_exec('command -v ' . \escapeshellarg($command) . ' 2>/dev/null'));
        if ($path === '' && \is_executable("/usr/sbin/{$command}")) {
            $path = "/usr/sbin/{$command}";
        }

        return $path === '' ? null : $path;
    }
}
