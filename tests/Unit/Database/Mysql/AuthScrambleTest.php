<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\AuthScramble;
use Petrel\Database\Mysql\MysqlException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;
use PHPUnit\Framework\TestCase;

#[CoversClass(AuthScramble::class)]
final class AuthScrambleTest extends TestCase
{
    /** @param list<int> $bytes */
    private static function bytes(array $bytes): string
    {
        return pack('C*', ...$bytes);
    }

    /** Published vectors: go-sql-driver/mysql auth_test.go (TestAuthFastNativePassword). */
    public function testNativePasswordPublishedVector(): void
    {
        $nonce = self::bytes([70, 114, 92, 94, 1, 38, 11, 116, 63, 114, 23, 101, 126, 103, 26, 95, 81, 17, 24, 21]);
        $expected = self::bytes([53, 177, 140, 159, 251, 189, 127, 53, 109, 252, 172, 50, 211, 192, 240, 164, 26, 48, 207, 45]);
        self::assertSame($expected, AuthScramble::nativePassword('secret', $nonce));
    }

    /** Published vectors: go-sql-driver/mysql auth_test.go (TestScrambleSHA256Pass and the fast-auth tests). */
    public function testCachingSha2PublishedVectors(): void
    {
        $nonce = self::bytes([10, 47, 74, 111, 75, 73, 34, 48, 88, 76, 114, 74, 37, 13, 3, 80, 82, 2, 23, 21]);
        self::assertSame(
            'f490e76f66d9d86665ce54d98c78d0acfe2fb0b08b423da807144873d30b312c',
            bin2hex(AuthScramble::cachingSha2Password('secret', $nonce)),
        );
        self::assertSame(
            'abc3934a012cf342e876071c8ee202de51785b430258a7a0138bc79c4d800bc6',
            bin2hex(AuthScramble::cachingSha2Password('secret2', $nonce)),
        );
        $nonce = self::bytes([90, 105, 74, 126, 30, 48, 37, 56, 3, 23, 115, 127, 69, 22, 41, 84, 32, 123, 43, 118]);
        $expected = self::bytes([102, 32, 5, 35, 143, 161, 140, 241, 171, 232, 56, 139, 43, 14, 107, 196, 249, 170,
            147, 60, 220, 204, 120, 178, 214, 15, 184, 150, 26, 61, 57, 235]);
        self::assertSame($expected, AuthScramble::cachingSha2Password('secret', $nonce));
    }

    /** The formulas, computed independently with the hash functions. */
    public function testScramblesMatchTheirDefinitions(): void
    {
        $nonce = random_bytes(20);
        $password = 'pässwörd with spaces';

        $sha1 = sha1($password, true);
        $native = '';
        $mask = sha1($nonce . sha1(sha1($password, true), true), true);
        for ($i = 0; $i < 20; ++$i) {
            $native .= \chr(\ord($sha1[$i]) ^ \ord($mask[$i]));
        }
        self::assertSame($native, AuthScramble::nativePassword($password, $nonce));

        $sha256 = hash('sha256', $password, true);
        $mask = hash('sha256', hash('sha256', hash('sha256', $password, true), true) . $nonce, true);
        $sha2 = '';
        for ($i = 0; $i < 32; ++$i) {
            $sha2 .= \chr(\ord($sha256[$i]) ^ \ord($mask[$i]));
        }
        self::assertSame($sha2, AuthScramble::cachingSha2Password($password, $nonce));
    }

    public function testEmptyPasswordSendsAnEmptyResponse(): void
    {
        self::assertSame('', AuthScramble::nativePassword('', str_repeat('n', 20)));
        self::assertSame('', AuthScramble::cachingSha2Password('', str_repeat('n', 20)));
    }

    #[RequiresPhpExtension('openssl')]
    public function testRsaEncryptedPasswordDecryptsToPasswordXorNonce(): void
    {
        [$publicPem, $privateKey] = self::rsaKeyPair();
        $nonce = 'abcdefghij0123456789';
        $password = str_repeat('long password ', 3); // longer than the nonce: the nonce repeats

        $encrypted = AuthScramble::rsaEncryptPassword($password, $nonce, $publicPem);
        self::assertSame(256, \strlen($encrypted));
        self::assertTrue(openssl_private_decrypt($encrypted, $plain, $privateKey, OPENSSL_PKCS1_OAEP_PADDING));
        self::assertIsString($plain);
        $expected = '';
        $clear = $password . "\0";
        for ($i = 0; $i < \strlen($clear); ++$i) {
            $expected .= \chr(\ord($clear[$i]) ^ \ord($nonce[$i % 20]));
        }
        self::assertSame($expected, $plain);
    }

    #[RequiresPhpExtension('openssl')]
    public function testUnusableKeyIsAMysqlException(): void
    {
        $this->expectException(MysqlException::class);
        $this->expectExceptionCode(MysqlException::CLIENT_AUTH_PLUGIN_ERROR);
        AuthScramble::rsaEncryptPassword('secret', str_repeat('n', 20), 'not a PEM key');
    }

    /** @return array{string, \OpenSSLAsymmetricKey} */
    public static function rsaKeyPair(): array
    {
        $key = openssl_pkey_new(['private_key_bits' => 2048, 'private_key_type' => OPENSSL_KEYTYPE_RSA]);
        self::assertInstanceOf(\OpenSSLAsymmetricKey::class, $key);
        $details = openssl_pkey_get_details($key);
        self::assertIsArray($details);
        self::assertIsString($details['key']);

        return [$details['key'], $key];
    }
}
