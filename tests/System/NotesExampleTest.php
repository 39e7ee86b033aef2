<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

/** examples/notes, the README's "small app in minutes": routes, a model, a template. */
final class NotesExampleTest extends AsyncTestCase
{
    public function testTheReadmeAppWorks(): void
    {
        $file = \sys_get_temp_dir() . '/petrel-notes-test-' . \getmypid() . '.sqlite';
        \putenv("DATABASE_URL=sqlite://{$file}");
        try {
            $server = (new PetrelProcess(__DIR__ . '/../../examples/notes/app.php', ['--workers=1']))->start();
        } finally {
            \putenv('DATABASE_URL');
        }
        $this->async(static function () use ($server): void {
            $body = 'text=' . \rawurlencode('<b>first</b>');
            $created = RawHttp::request($server->address, "POST /notes HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " . \strlen($body) . "\r\n\r\n{$body}");
            self::assertSame(303, $created->status);
            self::assertStringContainsString('&lt;b&gt;first&lt;/b&gt;', RawHttp::get($server->address)->body, 'listed, escaped');
            self::assertSame(['id' => 1, 'text' => '<b>first</b>'], \json_decode(RawHttp::get($server->address, '/api/notes/1')->body, true));
            self::assertSame(404, RawHttp::get($server->address, '/api/notes/99', ['Accept' => 'application/json'])->status);
            $invalid = RawHttp::request($server->address, "POST /notes HTTP/1.1\r\nHost: a\r\nConnection: close\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\ntext=");
            self::assertSame(422, $invalid->status);
        });
        self::assertSame(0, $server->stop());
        foreach (['', '-wal', '-shm'] as $suffix) {
            @\unlink($file . $suffix);
        }
    }
}
