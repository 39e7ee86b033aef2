<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * HTTP server settings as plain fields with safe defaults, nginx-like where nginx has an
 * equivalent (client_header_timeout 60 s, keepalive_timeout 75 s, keepalive_requests 1000,
 * send_timeout 60 s, lingering_time 30 s, lingering_timeout 5 s). Change them through
 * with(); the object is immutable.
 */
final class ServerConfig
{
    public const MODE_COROUTINE = 'coroutine';
    public const MODE_SYNC = 'sync';
    /** Default lingerBytes: what a lingering close reads and drops at most. */
    public const LINGER_BYTES = 64 * 1024 * 1024;
    /** accessLogFormat: nginx's and Apache's combined format, one line per request. */
    public const ACCESS_LOG_COMBINED = 'combined';
    /** accessLogFormat: one JSON object per line (Observability\JsonAccessLog). */
    public const ACCESS_LOG_JSON = 'json';

    public function __construct(
        /** "coroutine": requests of a worker run concurrently; "sync": one at a time. */
        public readonly string $mode = self::MODE_COROUTINE,
        public readonly HttpLimits $limits = new HttpLimits(),
        /** Seconds for a whole request head to arrive (slowloris defence). */
        public readonly float $headerTimeout = 60.0,
        /** Seconds for a request body to arrive once its head is in. */
        public readonly float $bodyTimeout = 60.0,
        /** Seconds a keep-alive connection may sit idle between requests. */
        public readonly float $idleTimeout = 75.0,
        /** Seconds a response write may stay blocked on a client that does not read. */
        public readonly float $writeTimeout = 60.0,
        public readonly int $maxRequestsPerConnection = 1000,
        /**
         * Open connections per worker; stream_select() caps a process near 1,020
         * descriptors. At the cap a new connection evicts the longest-idle keep-alive
         * connection, or is answered 503 when none is idle: it never waits unanswered.
         */
        public readonly int $maxConnections = 1000,
        /** Show exception details in 500 responses. Never in production. */
        public readonly bool $debug = false,
        /** Compress text responses of at least 1 KiB when the client accepts gzip. */
        public readonly bool $gzip = false,
        /** Where to append one line per request ("php://stderr", a file path), or null. */
        public readonly ?string $accessLog = null,
        /**
         * Lingering close (for a close while the client may still be sending: an error
         * answer, unread request bytes): after the response and a half-close, the client's
         * bytes are read and dropped for at most lingerTime seconds in all, lingerTimeout
         * seconds without a byte, and lingerBytes bytes, so its unread bytes do not turn the
         * close into a reset that destroys the response.
         */
        public readonly float $lingerTime = 30.0,
        public readonly float $lingerTimeout = 5.0,
        public readonly int $lingerBytes = self::LINGER_BYTES,
        /** ACCESS_LOG_COMBINED or ACCESS_LOG_JSON (with the request id and the time taken). */
        public readonly string $accessLogFormat = self::ACCESS_LOG_COMBINED,
        /**
         * Connections turned away at the cap (503 and a lingering close) that may be held
         * open at once, beside the maxConnections served; past them a newcomer is closed at
         * once. null: as many as maxConnections. Under the select driver every socket counts
         * toward its 1,024 descriptors, so bin/petrel makes the two sum to at most 1,000.
         */
        public readonly ?int $maxRejecting = null,
    ) {
        if ($accessLogFormat !== self::ACCESS_LOG_COMBINED && $accessLogFormat !== self::ACCESS_LOG_JSON) {
            throw new \InvalidArgumentException("Unknown access log format \"{$accessLogFormat}\": use \"combined\" or \"json\"");
        }
        if ($mode !== self::MODE_COROUTINE && $mode !== self::MODE_SYNC) {
            throw new \InvalidArgumentException("Unknown mode \"{$mode}\": use \"coroutine\" or \"sync\"");
        }
        foreach (['headerTimeout' => $headerTimeout, 'bodyTimeout' => $bodyTimeout, 'idleTimeout' => $idleTimeout, 'writeTimeout' => $writeTimeout, 'lingerTime' => $lingerTime, 'lingerTimeout' => $lingerTimeout] as $name => $value) {
            if ($value <= 0) {
                throw new \InvalidArgumentException("{$name} must be > 0, got {$value}");
            }
        }
        if ($maxRequestsPerConnection < 1 || $maxConnections < 1) {
            throw new \InvalidArgumentException('maxRequestsPerConnection and maxConnections must be >= 1');
        }
        if ($maxRejecting !== null && $maxRejecting < 0) {
            throw new \InvalidArgumentException("maxRejecting must be >= 0, got {$maxRejecting}");
        }
        if ($lingerBytes < 0) {
            throw new \InvalidArgumentException("lingerBytes must be >= 0, got {$lingerBytes}");
        }
    }

    /** @param mixed ...$changes named fields to change, e.g. with(mode: 'sync', debug: true) */
    public function with(mixed ...$changes): self
    {
        return new self(...\array_merge(\get_object_vars($this), $changes));
    }
}
