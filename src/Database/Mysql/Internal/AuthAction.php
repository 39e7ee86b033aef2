<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** What the connection must do next during authentication. */
enum AuthAction
{
    /** Write AuthStep::$payload as the next packet, then read a packet and pass it to handle(). */
    case Send;
    /** Write nothing; read the next packet and pass it to handle(). */
    case Read;
    /**
     * Write AuthStep::$payload (the SSLRequest), run the TLS handshake on the socket, then
     * call Authenticator::tlsEstablished() for the next step.
     */
    case UpgradeTls;
    /** Authenticated: the command phase begins. AuthStep::$ok holds the server's OK. */
    case Done;
    /** The server refused: AuthStep::$error holds its ERR (see AuthStep::exception()). */
    case Failed;
}
