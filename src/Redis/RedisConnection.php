<?php

declare(strict_types=1);

namespace Petrel\Redis;

use Closure;
use Petrel\Pool\ExclusiveUse;
use Petrel\Redis\Internal\BatchReplies;
use Petrel\Redis\Internal\CommandArgs;
use Petrel\Redis\Internal\CommandMethods;
use Petrel\Redis\Internal\Handshake;
use Petrel\Redis\Internal\ReplyShape;
use Petrel\Redis\Internal\RespEncoder;
use Petrel\Redis\Internal\RespStream;
use Petrel\Redis\Internal\SubscriberLoop;
use Petrel\Socket\ConnectOptions;
use Petrel\Socket\SocketException;

use function Petrel\Socket\connect;

/**
 * One connection to a Redis server. Calls look synchronous: they suspend the calling
 * coroutine (never the worker) until the reply is in, and honour its deadlines and
 * cancellation.
 *
 *     $redis = RedisConnection::connect(RedisConfig::fromEnv());
 *     $redis->set('greeting', 'hello', ttl: 60);
 *     $redis->get('greeting');                          // "hello"
 *     $redis->command('OBJECT', 'ENCODING', 'greeting'); // any command
 *
 * One coroutine at a time. A connection carries one exchange at a time; a second
 * coroutine calling while a call is in flight gets a {@see RedisError} ("already in use by
 * coroutine #N") instead of a silently interleaved stream. Give each coroutine its own
 * connection, from a pool.
 *
 * Failures. A command the server refuses throws {@see RedisException} (kind + message);
 * the connection stays usable. A lost connection throws {@see RedisConnectionException}
 * and invalid RESP a {@see RedisProtocolException}; both close the connection. A deadline
 * or cancellation that interrupts a call (TimeoutException, CancelledException, rethrown
 * as is) closes it too: its reply may still arrive and would be taken for the next one's.
 * Once closed, isUsable() is false and every call throws RedisConnectionException.
 */
final class RedisConnection
{
    use CommandMethods;

    private const MULTI = "*1\r\n\$5\r\nMULTI\r\n";
    private const EXEC = "*1\r\n\$4\r\nEXEC\r\n";

    /** Which coroutine has a call in flight, if any. */
    private readonly ExclusiveUse $use;
    private ?SubscriberLoop $subscription = null;
    private bool $watching = false;
    private readonly int $protocol;

    private function __construct(private readonly RespStream $stream, private readonly RedisConfig $config)
    {
        $this->protocol = $config->protocol;
        $endpoint = $stream->endpoint;
        $this->use = new ExclusiveUse(static fn (string $who): RedisError => new RedisError(
            "The Redis connection to {$endpoint} is already in use by {$who}: a connection serves one "
            . 'coroutine at a time; give each coroutine its own connection (use a pool)',
        ));
    }

    /**
     * Connects, sets TLS up (rediss://), authenticates (AUTH, or HELLO 3 for RESP3) and
     * selects the database, all within $config->connectTimeout.
     *
     * @throws RedisConnectionException refused, timed out, or the server refused AUTH/SELECT
     */
    public static function connect(RedisConfig $config): self
    {
        $start = \hrtime(true);
        try {
            $socket = connect($config->socketAddress(), new ConnectOptions($config->connectTimeout));
        } catch (SocketException $e) {
            $reason = (string) \preg_replace('/^Could not connect to \S+: /', '', $e->getMessage());
            throw new RedisConnectionException("Could not connect to Redis at {$config->endpoint()}: {$reason}", 0, $e);
        }
        $socket->getRemoteAddress(); // cached while connected, for "Write to … failed" after the server went
        $stream = new RespStream($socket, $config->endpoint());
        $left = $config->connectTimeout - (\hrtime(true) - $start) / 1e9;
        Handshake::perform($socket, $stream, $config, \max(0.001, $left));

        return new self($stream, $config);
    }

    /**
     * Sends any command and returns its decoded reply: string, int, float, bool (RESP3),
     * null, or a list / map of those. The protocol-changing commands (SUBSCRIBE, MULTI,
     * EXEC, HELLO, MONITOR, RESET…) are refused: use the methods made for them.
     *
     * @throws RedisException           the server answered with an error reply
     * @throws RedisConnectionException the connection is closed or was lost
     * @throws RedisError               misuse: see the class comment
     */
    public function command(string $name, string|int|float ...$args): mixed
    {
        CommandArgs::guard($name, $args);

        return $this->call([$name, ...\array_values($args)]);
    }

    /**
     * Queues the commands $queue issues on a {@see RedisPipeline}, sends them in one
     * write and reads their replies in order: one round trip for all. Returns one result
     * per command, as the method of the same name would return it. A command the server
     * refused does NOT throw: its place in the list holds the {@see RedisException}, so one
     * failure does not hide the others' results. Lost connections and deadlines throw
     * (and close the connection) as for single commands.
     *
     * @param Closure(RedisPipeline): mixed $queue
     * @return list<mixed>
     */
    public function pipeline(Closure $queue): array
    {
        $this->checkAvailable();
        $pipeline = new RedisPipeline();
        try {
            $queue($pipeline);
        } finally {
            [$payload, $shapes] = $pipeline->seal();
        }
        if ($shapes === []) {
            return [];
        }
        $this->enter();
        try {
            $replies = $this->stream->requestMany($payload, \count($shapes));
        } finally {
            $this->use->leave();
        }

        return BatchReplies::results($replies, $shapes, $this->protocol);
    }

    /**
     * Runs the commands $queue issues on a {@see RedisPipeline} atomically: sends MULTI,
     * them and EXEC in one write, and returns EXEC's results like pipeline() (a command
     * that failed while executing is a RedisException object in the list).
     *
     * If $queue throws, nothing was sent: the transaction is discarded (and keys watched
     * with watch() are unwatched, as DISCARD would) and the exception is rethrown.
     *
     * @param Closure(RedisPipeline): mixed $queue
     * @return list<mixed>|null null when a key given to watch() changed meanwhile (nothing
     *                          was executed: read again and retry)
     * @throws RedisException EXECABORT when the server refused to queue a command (wrong
     *                        arguments, unknown command); its reason is the previous exception
     */
    public function transaction(Closure $queue): ?array
    {
        $this->checkAvailable();
        $pipeline = new RedisPipeline();
        try {
            $queue($pipeline);
        } catch (\Throwable $e) {
            $pipeline->seal();
            if ($this->watching) {
                try {
                    $this->unwatch();
                } catch (\Throwable) {
                    // The connection is unusable then anyway; $e is what the caller needs to see.
                }
            }
            throw $e;
        }
        [$payload, $shapes] = $pipeline->seal();
        $count = \count($shapes);
        $this->enter();
        try {
            $replies = $this->stream->requestMany(self::MULTI . $payload . self::EXEC, $count + 2);
        } finally {
            $this->use->leave();
            $this->watching = false;
        }
        $exec = $replies[$count + 1];
        if ($exec instanceof RedisErrorReply || $replies[0] instanceof RedisErrorReply) {
            throw BatchReplies::refusal($replies) ?? new \LogicException('unreachable');
        }
        if (!\is_array($exec)) {
            return null;
        }

        return BatchReplies::results(\array_values($exec), $shapes, $this->protocol);
    }

    /**
     * WATCH: the next transaction() on this connection executes only if none of $keys
     * changed in between (else it returns null). transaction() ends the watch either way.
     */
    public function watch(string $key, string ...$keys): void
    {
        $this->call(['WATCH', $key, ...$keys], ReplyShape::Void);
        $this->watching = true;
    }

    /** UNWATCH: forgets the keys given to watch(). */
    public function unwatch(): void
    {
        $this->call(['UNWATCH'], ReplyShape::Void);
        $this->watching = false;
    }

    /**
     * Subscribes to $channels and calls $onMessage(string $channel, string $message) for
     * each message, until it returns false or calls unsubscribe(), the connection is
     * closed (close() from the callback or another coroutine: returns normally) or lost
     * (throws RedisConnectionException). Then the connection leaves subscriber mode and can
     * run commands again; messages still arriving while it leaves are dropped.
     *
     * A subscribed connection is dedicated to the subscription: any other call on it
     * throws RedisError meanwhile; publish from another connection. If the callback
     * throws, the subscription ends and the exception is rethrown. A deadline around
     * subscribe() that expires closes the connection.
     *
     * @param list<string> $channels
     * @param Closure(string, string): mixed $onMessage
     * @throws RedisException when the server refuses the subscription (e.g. ACL)
     */
    public function subscribe(array $channels, Closure $onMessage): void
    {
        $this->listen($channels, $onMessage, false);
    }

    /**
     * Like subscribe(), for glob-style patterns ("news.*"): $onMessage receives
     * (string $channel, string $message, string $pattern).
     *
     * @param list<string> $patterns
     * @param Closure(string, string, string): mixed $onMessage
     */
    public function psubscribe(array $patterns, Closure $onMessage): void
    {
        $this->listen($patterns, $onMessage, true);
    }

    /**
     * Ends the running subscribe() / psubscribe(): from its callback (it returns after the
     * callback does), or from another coroutine (it sends the unsubscribe at once). Does
     * nothing when the connection is not subscribed.
     */
    public function unsubscribe(): void
    {
        $this->subscription?->stop(!$this->use->heldByCaller());
    }

    /** Closes the connection; a call in flight on it throws RedisConnectionException. */
    public function close(): void
    {
        $this->stream->close();
    }

    /** Keys given to watch() are being watched (until the next transaction() or unwatch()). */
    public function isWatching(): bool
    {
        return $this->watching;
    }

    public function isClosed(): bool
    {
        return !$this->stream->isOpen();
    }

    /**
     * Whether the connection can be handed to its next user as it is: open, no call in
     * flight, not subscribed, no pending watch(). False for good after a lost connection,
     * a protocol error, or a deadline or cancellation that interrupted a call — a pool
     * discards such connections.
     */
    public function isUsable(): bool
    {
        return !$this->use->busy() && $this->subscription === null && !$this->watching && $this->stream->isAlive();
    }

    public function getConfig(): RedisConfig
    {
        return $this->config;
    }

    /**
     * GET: the value, or null when the key does not exist.
     *
     * The command called most, so it skips call()'s command array and encoder: its bytes
     * are those RespEncoder::encode(['GET', $key]) makes (some 1,300 instructions less per
     * GET). The trait's get() stays the pattern for RedisPipeline's twin.
     */
    public function get(string $key): ?string
    {
        return $this->request("*2\r\n\$3\r\nGET\r\n\$" . \strlen($key) . "\r\n{$key}\r\n");
    }

    /**
     * The hot path of every command: one write, then the parser until the reply is in.
     *
     * @param array<string|int|float> $command
     */
    private function call(array $command, ReplyShape $shape = ReplyShape::Raw): mixed
    {
        $reply = $this->request(RespEncoder::encode($command));

        return $shape === ReplyShape::Raw ? $reply : $shape->convert($reply, $this->protocol);
    }

    /**
     * One encoded command's reply, in this coroutine's exclusive use; an error reply throws.
     * enter() inlined, its closed check left to RespStream::request() (two calls less per
     * command): a call in flight elsewhere still gets "already in use" before "closed".
     */
    private function request(string $payload): mixed
    {
        if ($this->subscription !== null) {
            throw $this->refusal();
        }
        $this->use->enter();
        try {
            $reply = $this->stream->request($payload);
        } finally {
            $this->use->leave();
        }
        if ($reply instanceof RedisErrorReply) {
            throw RedisException::fromReply($reply);
        }

        return $reply;
    }

    /** Marks the connection as used by the running coroutine, or says why it cannot be. */
    private function enter(): void
    {
        if ($this->subscription !== null || (!$this->stream->isOpen() && !$this->use->busy())) {
            throw $this->refusal();
        }
        $this->use->enter(); // a call in flight in another coroutine: "already in use"
    }

    private function checkAvailable(): void
    {
        if ($this->subscription !== null || (!$this->use->busy() && !$this->stream->isOpen())) {
            throw $this->refusal();
        }
        $this->use->check();
    }

    private function refusal(): \Throwable
    {
        $endpoint = $this->stream->endpoint;
        if ($this->subscription !== null) {
            return new RedisError(
                "The Redis connection to {$endpoint} is subscribed (subscribe()/psubscribe()) and dedicated to "
                . 'receiving messages: use another connection for commands, or unsubscribe() first',
            );
        }
        return $this->stream->closedException();
    }

    /** @param list<string> $names */
    private function listen(array $names, Closure $onMessage, bool $patterns): void
    {
        if ($names === []) {
            throw new \ValueError(($patterns ? 'psubscribe()' : 'subscribe()') . ' needs at least one name');
        }
        $this->enter();
        $this->subscription = new SubscriberLoop($this->stream, $patterns, $onMessage);
        try {
            $this->subscription->run(\array_values($names));
        } catch (RedisConnectionException $e) {
            if (!$this->stream->wasClosedByUser()) {
                throw $e;
            }
        } finally {
            $this->subscription = null;
            $this->use->leave();
        }
    }
}
