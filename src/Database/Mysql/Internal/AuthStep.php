<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\MysqlException;

/** One step of the authentication exchange, as decided by Authenticator. */
final class AuthStep
{
    private function __construct(
        public readonly AuthAction $action,
        /** The payload to write for Send and UpgradeTls (unframed). */
        public readonly string $payload = '',
        public readonly ?OkPacket $ok = null,
        public readonly ?ErrPacket $error = null,
    ) {
    }

    public static function send(string $payload): self
    {
        return new self(AuthAction::Send, $payload);
    }

    public static function read(): self
    {
        return new self(AuthAction::Read);
    }

    public static function upgradeTls(string $sslRequest): self
    {
        return new self(AuthAction::UpgradeTls, $sslRequest);
    }

    public static function done(OkPacket $ok): self
    {
        return new self(AuthAction::Done, '', $ok);
    }

    public static function failed(ErrPacket $error): self
    {
        return new self(AuthAction::Failed, '', null, $error);
    }

    /** The server's refusal as an exception (only for Failed). */
    public function exception(): MysqlException
    {
        if ($this->error === null) {
            throw new \Error('AuthStep::exception() called on a step that did not fail');
        }

        return $this->error->toException();
    }
}
