<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/** Close status codes (RFC 6455 §7.4) and which of them may travel in a close frame. */
final class CloseCode
{
    public const NORMAL = 1000;
    public const GOING_AWAY = 1001;
    public const PROTOCOL_ERROR = 1002;
    public const UNSUPPORTED_DATA = 1003;
    /** Reserved: never sent; reported when a close frame carried no code. */
    public const NO_STATUS = 1005;
    /** Reserved: never sent; reported when the connection dropped without a close frame. */
    public const ABNORMAL = 1006;
    public const INVALID_PAYLOAD = 1007;
    public const POLICY_VIOLATION = 1008;
    public const MESSAGE_TOO_BIG = 1009;
    public const MANDATORY_EXTENSION = 1010;
    public const INTERNAL_ERROR = 1011;
    /** The server is restarting; the client may reconnect (IANA registry, §11.7). */
    public const SERVICE_RESTART = 1012;
    /** Overloaded: try again later (IANA registry). */
    public const TRY_AGAIN_LATER = 1013;
    /** A gateway's upstream answered badly (IANA registry). */
    public const BAD_GATEWAY = 1014;

    private function __construct()
    {
    }

    /**
     * Whether $code may appear in a close frame: 1000–1003, 1007–1014 (1012–1014 added to
     * the IANA registry RFC 6455 §11.7 set up; browsers and `ws` accept them) and 3000–4999.
     * 1004–1006 and 1015 are reserved, the rest of 1000–2999 is unassigned, < 1000 unused.
     */
    public static function isValid(int $code): bool
    {
        return ($code >= 1000 && $code <= 1003)
            || ($code >= 1007 && $code <= 1014)
            || ($code >= 3000 && $code <= 4999);
    }
}
