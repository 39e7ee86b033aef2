<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\MysqlException;

/** The password transforms of the authentication plugins we speak. Pure functions. */
final class AuthScramble
{
    private function __construct()
    {
    }

    /** mysql_native_password: SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw))); empty for no password. */
    public static function nativePassword(#[\SensitiveParameter] string $password, string $nonce): string
    {
        if ($password === '') {
            return '';
        }
        $stage1 = sha1($password, true);
        $stage2 = sha1($stage1, true);

        return $stage1 ^ sha1($nonce . $stage2, true);
    }

    /**
     * caching_sha2_password fast path:
     * SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce); empty for no password.
     */
    public static function cachingSha2Password(#[\SensitiveParameter] string $password, string $nonce): string
    {
        if ($password === '') {
            return '';
        }
        $stage1 = hash('sha256', $password, true);
        $stage2 = hash('sha256', $stage1, true);

        return $stage1 ^ hash('sha256', $stage2 . $nonce, true);
    }

    /**
     * Full authentication over an insecure channel (caching_sha2_password, sha256_password):
     * (password + NUL) XOR the nonce repeated, encrypted with the server's RSA public key
     * using OAEP padding.
     *
     * @throws MysqlException when ext-openssl is missing or the key is unusable
     */
    public static function rsaEncryptPassword(
        #[\SensitiveParameter] string $password,
        string $nonce,
        string $publicKeyPem,
    ): string {
        if (!\function_exists('openssl_public_encrypt')) {
            throw new MysqlException(
                'Sending the password needs ext-openssl (RSA) on a connection without TLS; enable TLS or ext-openssl',
                MysqlException::CLIENT_AUTH_PLUGIN_ERROR,
            );
        }
        if ($nonce === '') {
            throw new MysqlException('Empty authentication nonce', MysqlException::CLIENT_AUTH_PLUGIN_ERROR);
        }
        $plain = $password . "\0";
        $mask = str_repeat($nonce, intdiv(\strlen($plain), \strlen($nonce)) + 1);
        $masked = $plain ^ substr($mask, 0, \strlen($plain));
        $encrypted = null;
        $key = openssl_pkey_get_public($publicKeyPem);
        if (
            $key === false
            || !openssl_public_encrypt($masked, $encrypted, $key, OPENSSL_PKCS1_OAEP_PADDING)
            || !\is_string($encrypted)
        ) {
            while (openssl_error_string() !== false) {
                // Drain OpenSSL's error queue so it does not leak into later calls.
            }
            throw new MysqlException(
                'Could not encrypt the password with the server\'s RSA public key',
                MysqlException::CLIENT_AUTH_PLUGIN_ERROR,
            );
        }

        return $encrypted;
    }
}
