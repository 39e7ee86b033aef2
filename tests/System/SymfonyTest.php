<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;
use Petrel\Tests\Support\RequiresServices;

/**
 * examples/symfony served by `bin/petrel start examples/symfony/app.php`: the APP file
 * returns the Kernel unchanged. Skips when Symfony (a dev dependency) is not installed,
 * fails then under PETREL_REQUIRE_SERVICES=1.
 */
final class SymfonyTest extends AsyncTestCase
{
    use RequiresServices;

    private const APP = __DIR__ . '/../../examples/symfony/app.php';

    private ?PetrelProcess $server = null;
    private string $varDir = '';

    protected function setUp(): void
    {
        parent::setUp();
        if (!\class_exists(\Symfony\Bundle\FrameworkBundle\FrameworkBundle::class) || !\class_exists(\Symfony\Bundle\TwigBundle\TwigBundle::class)) {
            self::skipUnlessRequired('examples/symfony needs Symfony, a dev dependency: run `composer install` with dev dependencies');
        }
        $this->varDir = \sys_get_temp_dir() . '/petrel-sf-system-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
    }

    protected function tearDown(): void
    {
        $this->server?->stop();
        \putenv('APP_VAR_DIR');
        if ($this->varDir !== '') {
            \exec('rm -rf ' . \escapeshellarg($this->varDir));
        }
    }

    public function testTheKernelReturnedByTheAppFileServesEveryKindOfResponse(): void
    {
        \putenv("APP_VAR_DIR={$this->varDir}"); // inherited by bin/petrel: the cache goes there
        $this->server = (new PetrelProcess(self::APP, ['--workers=2']))->start(60.0);
        $address = $this->server->address;

        $this->async(static function () use ($address): void {
            $home = RawHttp::get($address, '/');
            self::assertSame(200, $home->status);
            self::assertStringContainsString('<h1>Hello, Symfony on Petrel!</h1>', $home->body);

            $json = RawHttp::get($address, '/api/hello?name=Ada');
            self::assertSame('{"message":"Hello, Ada!"}', $json->body);

            $form = 'form%5Bname%5D=Grace';
            $posted = RawHttp::request($address, "POST /greet HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
                . "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " . \strlen($form) . "\r\n\r\n{$form}");
            self::assertStringContainsString('Hello, Grace!', $posted->body);

            $seen = \json_decode(RawHttp::get($address, '/api/request?x=1', ['Cookie' => 'a=b', 'X-Forwarded-For' => '203.0.113.9'])->body, true);
            self::assertIsArray($seen);
            self::assertSame(['x' => '1'], $seen['query']);
            self::assertSame(['a' => 'b'], $seen['cookies']);
            self::assertSame('203.0.113.9', $seen['clientIp'], '127.0.0.1 is a trusted proxy in the example');

            $range = RawHttp::get($address, '/download', ['Range' => 'bytes=0-5']);
            self::assertSame(206, $range->status);
            self::assertSame('Petrel', $range->body);
            self::assertStringStartsWith('bytes 0-5/', (string) $range->header('Content-Range'));

            $stream = RawHttp::get($address, '/stream');
            self::assertSame(200, $stream->status);
            self::assertStringEndsWith("line 999\nline 1000\n", $stream->body);

            $boom = RawHttp::get($address, '/boom');
            self::assertSame(500, $boom->status);
            self::assertStringContainsString('Oops! An Error Occurred', $boom->body);

            for ($i = 1; $i <= 4; $i++) {
                self::assertSame("{\"entries\":[\"{$i}\"]}", RawHttp::get($address, "/api/state?id={$i}")->body, 'services are reset between requests');
            }
        }, 60.0);

        self::assertStringContainsString('Boom: this page fails on purpose', $this->server->log(), 'Symfony logs the exception to stderr');
    }
}
