<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\AuthAction;
use Petrel\Database\Mysql\Internal\Authenticator;
use Petrel\Database\Mysql\Internal\AuthStep;
use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\HandshakeResponse;
use Petrel\Database\Mysql\Internal\HandshakeV10;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;
use PHPUnit\Framework\TestCase;

#[CoversClass(Authenticator::class)]
#[CoversClass(AuthStep::class)]
#[CoversClass(HandshakeResponse::class)]
final class AuthenticatorTest extends TestCase
{
    private static function greeting(string $hex): HandshakeV10
    {
        return HandshakeV10::parse(substr((string) hex2bin($hex), 4));
    }

    private static function mariaDb(): HandshakeV10
    {
        return self::greeting(HandshakeV10Test::MARIADB_10_11);
    }

    private static function mysql8(): HandshakeV10
    {
        return self::greeting(HandshakeV10Test::MYSQL_8_0);
    }

    /**
     * Parses a HandshakeResponse41 independently of the encoder.
     *
     * @return array{caps: int, maxPacket: int, charset: int, filler: string, user: string, auth: string,
     *     db: ?string, plugin: ?string, attrs: string}
     */
    private static function parseResponse(string $payload): array
    {
        /** @var array{caps: int, max: int, charset: int} $head */
        $head = unpack('Vcaps/Vmax/Ccharset', $payload);
        $o = 32;
        $end = (int) strpos($payload, "\0", $o);
        $user = substr($payload, $o, $end - $o);
        $o = $end + 1;
        $length = \ord($payload[$o]); // all our test responses are short
        $auth = substr($payload, $o + 1, $length);
        $o += 1 + $length;
        $db = null;
        if (($head['caps'] & Capability::CONNECT_WITH_DB) !== 0) {
            $end = (int) strpos($payload, "\0", $o);
            $db = substr($payload, $o, $end - $o);
            $o = $end + 1;
        }
        $end = (int) strpos($payload, "\0", $o);
        $plugin = substr($payload, $o, $end - $o);

        return [
            'caps' => $head['caps'],
            'maxPacket' => $head['max'],
            'charset' => $head['charset'],
            'filler' => substr($payload, 9, 23),
            'user' => $user,
            'auth' => $auth,
            'db' => $db,
            'plugin' => $plugin,
            'attrs' => substr($payload, $end + 1),
        ];
    }

    public function testNativePasswordLoginAgainstMariaDbWithSequenceIds(): void
    {
        $framer = new PacketFramer();
        $framer->feed((string) hex2bin(HandshakeV10Test::MARIADB_10_11));
        $greeting = HandshakeV10::parse((string) $framer->next());

        $auth = new Authenticator('petrel', 'secret', 'app');
        $step = $auth->start($greeting);
        self::assertSame(AuthAction::Send, $step->action);
        $wire = $framer->packet($step->payload);
        self::assertSame(1, \ord($wire[3]), 'the login answers the greeting with sequence id 1');

        $response = self::parseResponse($step->payload);
        self::assertSame('petrel', $response['user']);
        self::assertSame(sha1('secret', true) ^ sha1($greeting->nonce . sha1(sha1('secret', true), true), true), $response['auth']);
        self::assertSame('app', $response['db']);
        self::assertSame('mysql_native_password', $response['plugin']);
        self::assertSame(45, $response['charset']);
        self::assertSame(str_repeat("\0", 23), $response['filler'], 'no MariaDB extended capabilities requested');
        $caps = $response['caps'];
        foreach ([
            Capability::PROTOCOL_41, Capability::SECURE_CONNECTION, Capability::PLUGIN_AUTH,
            Capability::PLUGIN_AUTH_LENENC_CLIENT_DATA, Capability::CONNECT_WITH_DB, Capability::MULTI_RESULTS,
            Capability::PS_MULTI_RESULTS, Capability::DEPRECATE_EOF, Capability::TRANSACTIONS, Capability::LONG_FLAG,
        ] as $flag) {
            self::assertSame($flag, $caps & $flag, \sprintf('flag 0x%X', $flag));
        }
        foreach ([
            Capability::MYSQL, Capability::MULTI_STATEMENTS, Capability::SSL, Capability::LOCAL_FILES,
            Capability::CONNECT_ATTRS, Capability::SESSION_TRACK, Capability::COMPRESS, Capability::FOUND_ROWS,
        ] as $flag) {
            self::assertSame(0, $caps & $flag, \sprintf('flag 0x%X', $flag));
        }

        $framer->feed(Wire::packets([Wire::ok()], 2));
        $done = $auth->handle((string) $framer->next());
        self::assertSame(AuthAction::Done, $done->action);
        self::assertNotNull($done->ok);
        self::assertSame(2, $done->ok->statusFlags);
        self::assertSame($caps, $auth->capabilities());
        self::assertSame(3, $framer->sequence());
    }

    public function testMultiStatementsFoundRowsAndAttributesWhenAsked(): void
    {
        $auth = new Authenticator(
            'u',
            '',
            null,
            multiStatements: true,
            foundRows: true,
            attributes: ['_client_name' => 'petrel'],
        );
        $response = self::parseResponse($auth->start(self::mysql8())->payload);
        self::assertNotSame(0, $response['caps'] & Capability::MULTI_STATEMENTS);
        self::assertNotSame(0, $response['caps'] & Capability::FOUND_ROWS);
        self::assertNotSame(0, $response['caps'] & Capability::CONNECT_ATTRS);
        self::assertNotSame(0, $response['caps'] & Capability::MYSQL, 'MySQL servers get CLIENT_LONG_PASSWORD');
        self::assertSame(0, $response['caps'] & Capability::CONNECT_WITH_DB);
        self::assertSame('', $response['auth'], 'empty password: empty auth response');
        self::assertSame('caching_sha2_password', $response['plugin']);
        self::assertSame("\x14\x0C_client_name\x06petrel", $response['attrs']);
    }

    public function testAuthSwitchToNativePassword(): void
    {
        $auth = new Authenticator('root', 'secret');
        $auth->start(self::mysql8());
        $nonce = '01234567890123456789';
        $step = $auth->handle("\xFEmysql_native_password\0" . $nonce . "\0");
        self::assertSame(AuthAction::Send, $step->action);
        self::assertSame(sha1('secret', true) ^ sha1($nonce . sha1(sha1('secret', true), true), true), $step->payload);
        self::assertSame('mysql_native_password', $auth->pluginName());
        self::assertSame(AuthAction::Done, $auth->handle(Wire::ok())->action);
    }

    public function testAuthSwitchToCachingSha2FromMariaDbStyleDefault(): void
    {
        $auth = new Authenticator('root', 'secret');
        $auth->start(self::mariaDb());
        $nonce = 'ABCDEFGHIJKLMNOPQRST';
        $step = $auth->handle("\xFEcaching_sha2_password\0" . $nonce . "\0");
        $stage1 = hash('sha256', 'secret', true);
        self::assertSame($stage1 ^ hash('sha256', hash('sha256', $stage1, true) . $nonce, true), $step->payload);
    }

    public function testCachingSha2FastAuthSuccess(): void
    {
        $greeting = self::mysql8();
        $auth = new Authenticator('root', 'secret', 'test');
        $response = self::parseResponse($auth->start($greeting)->payload);
        $stage1 = hash('sha256', 'secret', true);
        self::assertSame($stage1 ^ hash('sha256', hash('sha256', $stage1, true) . $greeting->nonce, true), $response['auth']);
        self::assertSame(AuthAction::Read, $auth->handle("\x01\x03")->action);
        self::assertSame(AuthAction::Done, $auth->handle(Wire::ok())->action);
    }

    public function testFullAuthenticationOverTlsSendsTheClearPassword(): void
    {
        $auth = new Authenticator('root', 'secret');
        $step = $auth->start(self::mysql8(), tls: true);
        self::assertSame(AuthAction::UpgradeTls, $step->action);
        self::assertSame(32, \strlen($step->payload), 'SSLRequest is the 32-byte head of the login');
        /** @var array{caps: int} $head */
        $head = unpack('Vcaps', $step->payload);
        self::assertNotSame(0, $head['caps'] & Capability::SSL);

        $login = $auth->tlsEstablished();
        self::assertSame(AuthAction::Send, $login->action);
        self::assertSame($step->payload, substr($login->payload, 0, 32));

        $full = $auth->handle("\x01\x04");
        self::assertSame(AuthAction::Send, $full->action);
        self::assertSame("secret\0", $full->payload);
        self::assertSame(AuthAction::Done, $auth->handle(Wire::ok())->action);
    }

    public function testFullAuthenticationOnAUnixSocketSendsTheClearPassword(): void
    {
        $auth = new Authenticator('root', 'secret', secureTransport: true);
        $auth->start(self::mysql8());
        self::assertSame("secret\0", $auth->handle("\x01\x04")->payload);
    }

    #[RequiresPhpExtension('openssl')]
    public function testFullAuthenticationWithoutTlsRequestsTheRsaKey(): void
    {
        [$publicPem, $privateKey] = AuthScrambleTest::rsaKeyPair();
        $greeting = self::mysql8();
        $framer = new PacketFramer();
        $framer->feed((string) hex2bin(HandshakeV10Test::MYSQL_8_0));
        $framer->next();

        $auth = new Authenticator('root', 'secret');
        self::assertSame(1, \ord($framer->packet($auth->start($greeting)->payload)[3]));
        $framer->feed(Wire::packets(["\x01\x04"], 2));
        $request = $auth->handle((string) $framer->next());
        self::assertSame(AuthAction::Send, $request->action);
        self::assertSame("\x02", $request->payload, 'request public key');
        self::assertSame("\x01\x00\x00\x03\x02", $framer->packet($request->payload));

        $framer->feed(Wire::packets(["\x01" . $publicPem], 4));
        $encrypted = $auth->handle((string) $framer->next());
        self::assertSame(AuthAction::Send, $encrypted->action);
        self::assertSame(5, \ord($framer->packet($encrypted->payload)[3]));
        self::assertTrue(openssl_private_decrypt($encrypted->payload, $plain, $privateKey, OPENSSL_PKCS1_OAEP_PADDING));
        self::assertSame("secret\0" ^ substr($greeting->nonce, 0, 7), $plain);

        $framer->feed(Wire::packets([Wire::ok()], 6));
        self::assertSame(AuthAction::Done, $auth->handle((string) $framer->next())->action);
    }

    #[RequiresPhpExtension('openssl')]
    public function testFullAuthenticationWithAConfiguredServerKey(): void
    {
        [$publicPem, $privateKey] = AuthScrambleTest::rsaKeyPair();
        $greeting = self::mysql8();
        $auth = new Authenticator('root', 'secret', serverPublicKey: $publicPem);
        $auth->start($greeting);
        $step = $auth->handle("\x01\x04");
        self::assertTrue(openssl_private_decrypt($step->payload, $plain, $privateKey, OPENSSL_PKCS1_OAEP_PADDING));
        self::assertSame("secret\0" ^ substr($greeting->nonce, 0, 7), $plain);
    }

    public function testFullAuthenticationRefusedWhenKeyRetrievalIsNotAllowed(): void
    {
        $auth = new Authenticator('root', 'secret', allowPublicKeyRetrieval: false);
        $auth->start(self::mysql8());
        $this->expectException(MysqlException::class);
        $this->expectExceptionCode(MysqlException::CLIENT_AUTH_PLUGIN_ERROR);
        $auth->handle("\x01\x04");
    }

    public function testServerErrorDuringAuthentication(): void
    {
        $auth = new Authenticator('petrel', 'wrong');
        $auth->start(self::mariaDb());
        $step = $auth->handle(Wire::err(1045, '28000', "Access denied for user 'petrel'@'localhost' (using password: YES)"));
        self::assertSame(AuthAction::Failed, $step->action);
        self::assertNotNull($step->error);
        self::assertSame(1045, $step->error->code);
        $exception = $step->exception();
        self::assertSame(1045, $exception->getCode());
        self::assertSame('28000', $exception->getSqlState());
        self::assertStringContainsString('Access denied', $exception->getMessage());
    }

    public function testServerErrorWhileWaitingForTheRsaKey(): void
    {
        $auth = new Authenticator('root', 'secret');
        $auth->start(self::mysql8());
        $auth->handle("\x01\x04");
        self::assertSame(AuthAction::Failed, $auth->handle(Wire::err(1045, '28000', 'denied'))->action);
    }

    public function testClearPasswordPluginOnlyOverTls(): void
    {
        $auth = new Authenticator('u', 'pw');
        $auth->start(self::mysql8(), tls: true);
        $auth->tlsEstablished();
        self::assertSame("pw\0", $auth->handle("\xFEmysql_clear_password\0")->payload);

        $plain = new Authenticator('u', 'pw');
        $plain->start(self::mysql8());
        $this->expectException(MysqlException::class);
        $plain->handle("\xFEmysql_clear_password\0");
    }

    public function testUnsupportedPluginIsAMysqlException(): void
    {
        $auth = new Authenticator('u', 'pw');
        $auth->start(self::mariaDb());
        $this->expectException(MysqlException::class);
        $this->expectExceptionCode(MysqlException::CLIENT_AUTH_PLUGIN_UNSUPPORTED);
        $this->expectExceptionMessage('client_ed25519');
        $auth->handle("\xFEclient_ed25519\0" . str_repeat('n', 32));
    }

    public function testPre41PasswordSwitchIsRefused(): void
    {
        $auth = new Authenticator('u', 'pw');
        $auth->start(self::mariaDb());
        $this->expectException(MysqlException::class);
        $auth->handle("\xFE");
    }

    public function testTlsRequestedFromAServerWithoutTls(): void
    {
        $this->expectException(MysqlException::class);
        $this->expectExceptionCode(MysqlException::CLIENT_SSL_CONNECTION_ERROR);
        (new Authenticator('u', 'pw'))->start(self::mariaDb(), tls: true);
    }

    public function testUnexpectedPacketsAreProtocolErrors(): void
    {
        $auth = new Authenticator('u', 'pw');
        $auth->start(self::mariaDb());
        $this->expectException(ProtocolException::class);
        $auth->handle("\x01\x03"); // AuthMoreData makes no sense for mysql_native_password
    }

    public function testMisuseIsAnError(): void
    {
        $auth = new Authenticator('u', 'pw');
        $this->expectException(\Error::class);
        $auth->handle(Wire::ok());
    }

    public function testTlsEstablishedWithoutUpgradeIsAnError(): void
    {
        $auth = new Authenticator('u', 'pw');
        $auth->start(self::mariaDb());
        $this->expectException(\Error::class);
        $auth->tlsEstablished();
    }
}
