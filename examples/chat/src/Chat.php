<?php

declare(strict_types=1);

namespace Chat;

use Petrel\Console\StartOptions;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Redis\Redis;
use Petrel\Redis\RedisFailure;
use Petrel\Web\App;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketOptions;

/**
 * The chat: GET / serves the page, /chat upgrades. A client sends JSON
 * {"text": "…", "name": "…"} (name optional: else the ?name= of its connection); every
 * member of the chat receives {"type": "message", "name", "text", "time"}. Members also
 * get {"type": "welcome", "shared": bool, "pid": int} on joining and {"type": "error",
 * "error": "…"} for a message that was refused.
 *
 * Limits: a received WebSocket message is at most 4 KiB (bigger: closed with 1009), a
 * text at most 1,000 characters, a name 32; each member has a queue of 64 messages, and
 * one that falls that far behind is dropped (Member).
 */
final class Chat
{
    public const MAX_MESSAGE_BYTES = 4096;
    public const MAX_TEXT = 1000;
    public const MAX_NAME = 32;
    public const QUEUE = 64;

    private function __construct()
    {
    }

    /** @param array<string, string> $env REDIS_URL picks the relay */
    public static function app(array $env): App
    {
        $url = $env['REDIS_URL'] ?? '';
        $relay = $url !== '' ? new RedisRelay(Redis::fromUrl($url)) : new LocalRelay();
        if (!$relay->isShared() && self::workers($env) > 1) {
            \fwrite(\STDERR, "chat: warning: REDIS_URL is not set, so messages reach only the clients of the same worker; start with --workers=1 or set REDIS_URL\n");
        }
        $hub = new Hub();
        $page = \str_replace('{{shared}}', $relay->isShared() ? 'true' : 'false', (string) \file_get_contents(__DIR__ . '/../page.html'));
        $options = (new WebSocketOptions())->withMaxMessageSize(self::MAX_MESSAGE_BYTES)->withMaxFrameSize(self::MAX_MESSAGE_BYTES)->withCloseTimeout(2.0);
        $app = new App();
        $app->get('/', static fn (): Response => Response::html($page));
        $app->websocket('/chat', static function (WebSocket $ws, Request $request) use ($hub, $relay): void {
            self::serve($ws, $request, $hub, $relay);
        }, $options);

        return $app;
    }

    private static function serve(WebSocket $ws, Request $request, Hub $hub, Relay $relay): void
    {
        $relay->listen($hub);
        $member = new Member($ws, self::QUEUE);
        $hub->join($member);
        $member->offer(self::json(['type' => 'welcome', 'shared' => $relay->isShared(), 'pid' => \getmypid()]));
        $defaultName = self::name($request->getQueryParam('name')) ?? 'anonymous';
        try {
            foreach ($ws as $message) {
                $data = $message->isText() ? \json_decode($message->data, true) : null;
                $text = \is_array($data) && \is_string($data['text'] ?? null) ? \trim($data['text']) : '';
                if ($text === '' || \mb_strlen($text) > self::MAX_TEXT) {
                    $member->offer(self::json(['type' => 'error', 'error' => 'Send JSON {"text": "…"} with 1 to ' . self::MAX_TEXT . ' characters']));
                    continue;
                }
                $name = self::name($data['name'] ?? null) ?? $defaultName;
                try {
                    $relay->publish(self::json(['type' => 'message', 'name' => $name, 'text' => $text, 'time' => \microtime(true)]), $hub);
                } catch (RedisFailure $e) {
                    $member->offer(self::json(['type' => 'error', 'error' => 'The message was not sent: ' . $e->getMessage()]));
                }
            }
        } finally {
            $hub->leave($member);
        }
    }

    private static function name(mixed $name): ?string
    {
        if (!\is_string($name) || ($name = \trim($name)) === '' || !\mb_check_encoding($name, 'UTF-8')) {
            return null;
        }

        return \mb_substr($name, 0, self::MAX_NAME);
    }

    /** @param array<string, mixed> $value */
    private static function json(array $value): string
    {
        return \json_encode($value, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES);
    }

    /**
     * The --workers of the `bin/petrel start` this worker belongs to (else PETREL_WORKERS, else the CPU count).
     *
     * @param array<string, string> $env
     */
    private static function workers(array $env): int
    {
        $argv = $_SERVER['argv'] ?? [];
        foreach ($argv as $i => $argument) {
            if (\preg_match('/^--workers=(\d+)$/', (string) $argument, $m) === 1) {
                return (int) $m[1];
            }
            if ($argument === '--workers' && isset($argv[$i + 1])) {
                return (int) $argv[$i + 1];
            }
        }

        return (int) ($env['PETREL_WORKERS'] ?? StartOptions::cpuCount());
    }
}
