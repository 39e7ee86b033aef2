<?php

declare(strict_types=1);

namespace Petrel\Web\Session\Internal;

/** Session ids: 32 bytes from random_bytes(), base64url without padding (43 characters). */
final class SessionId
{
    public static function generate(): string
    {
        return \rtrim(\strtr(\base64_encode(\random_bytes(32)), '+/', '-_'), '=');
    }

    /** Whether $id has the shape of a generated id (anything else is never looked up). */
    public static function isValid(string $id): bool
    {
        return \strlen($id) === 43 && \strspn($id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') === 43;
    }
}
