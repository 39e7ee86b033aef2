<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Classic;

use Petrel\Http\UploadedFile;
use Petrel\Web\Classic\GlobalsRequest;
use Petrel\Web\Classic\MultipartBody;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/** Classic mode's glue: a Petrel Request from what php-fpm / `php -S` hand a script. */
#[CoversClass(GlobalsRequest::class)]
#[CoversClass(MultipartBody::class)]
final class GlobalsRequestTest extends TestCase
{
    /** @var list<string> */
    private array $files = [];

    protected function tearDown(): void
    {
        foreach ($this->files as $file) {
            @\unlink($file);
        }
    }

    public function testRequestLineHeadersAndRawBodyComeFromServerAndInput(): void
    {
        $input = $this->tempFile('name=Ada+L&tags%5B%5D=x&tags%5B%5D=y');
        $request = GlobalsRequest::fromArrays([
            'REQUEST_METHOD' => 'post',
            'REQUEST_URI' => '/users?page=2&q=a%20b',
            'SERVER_PROTOCOL' => 'HTTP/1.0',
            'HTTP_HOST' => 'blog.test',
            'HTTP_X_REQUEST_ID' => 'abc-123-def',
            'HTTP_COOKIE' => 'petrel_session=s1; theme=dark',
            'CONTENT_TYPE' => 'application/x-www-form-urlencoded',
            'CONTENT_LENGTH' => '37',
            'REMOTE_ADDR' => '10.0.0.7',
            'REMOTE_PORT' => '51234',
            'SCRIPT_NAME' => '/index.php',
        ], ['ignored' => 'for urlencoded bodies'], [], ['petrel_session' => 'ignored, the header wins'], $input);

        self::assertSame('POST', $request->getMethod());
        self::assertSame('/users?page=2&q=a%20b', $request->getTarget());
        self::assertSame('/users', $request->getPath());
        self::assertSame(['page' => '2', 'q' => 'a b'], $request->getQuery());
        self::assertSame('1.0', $request->getProtocolVersion());
        self::assertSame('blog.test', $request->getHeader('Host'));
        self::assertSame('abc-123-def', $request->getHeader('X-Request-Id'));
        self::assertSame(['petrel_session' => 's1', 'theme' => 'dark'], $request->getCookies());
        self::assertSame(['name' => 'Ada L', 'tags' => ['x', 'y']], $request->getParsedBody());
        self::assertSame('10.0.0.7:51234', $request->getRemoteAddress());
        self::assertNull($request->getHeader('script-name'));
    }

    public function testCookiesFallBackToTheCookieArrayWithoutAHeader(): void
    {
        $request = GlobalsRequest::fromArrays(['REQUEST_METHOD' => 'GET', 'REQUEST_URI' => '/'], [], [], ['a' => 'x y', 'b' => '1'], '/dev/null');

        self::assertSame(['a' => 'x y', 'b' => '1'], $request->getCookies());
    }

    public function testDefaultsForAnAlmostEmptyServerArrayAndBasicAuthFromPhpAuthUser(): void
    {
        $request = GlobalsRequest::fromArrays(['REQUEST_URI' => 'index.php?x=1', 'PHP_AUTH_USER' => 'ada', 'PHP_AUTH_PW' => 's3cret', 'CONTENT_LENGTH' => ''], [], [], [], '/nonexistent/input');

        self::assertSame('GET', $request->getMethod());
        self::assertSame('/index.php?x=1', $request->getTarget());
        self::assertSame('1.1', $request->getProtocolVersion());
        self::assertSame('Basic ' . \base64_encode('ada:s3cret'), $request->getHeader('authorization'));
        self::assertNull($request->getHeader('content-length'));
        self::assertNull($request->getRemoteAddress());
        self::assertSame(0, $request->getBodySize());
    }

    public function testAMultipartBodyConsumedByPhpIsRebuiltFromPostAndFiles(): void
    {
        $one = $this->tempFile('first file');
        $two = $this->tempFile("second\r\n--file");
        $avatar = $this->tempFile('PNG…');
        $request = GlobalsRequest::fromArrays(
            ['REQUEST_METHOD' => 'POST', 'REQUEST_URI' => '/users', 'CONTENT_TYPE' => 'multipart/form-data; boundary=gone', 'CONTENT_LENGTH' => '999'],
            ['name' => 'Zoë "Z" \\ Q', 'address' => ['city' => 'Oslo', 'lines' => ['a', 'b']]],
            [
                'avatar' => ['name' => 'me.png', 'full_path' => 'me.png', 'type' => 'image/png', 'tmp_name' => $avatar, 'error' => \UPLOAD_ERR_OK, 'size' => 6],
                'docs' => [
                    'name' => ['one.txt', 'two.txt', ''],
                    'type' => ['text/plain', 'text/plain', ''],
                    'tmp_name' => [$one, $two, ''],
                    'error' => [\UPLOAD_ERR_OK, \UPLOAD_ERR_OK, \UPLOAD_ERR_NO_FILE],
                    'size' => [10, 14, 0],
                ],
            ],
            [],
            '/dev/null',
        );

        self::assertSame(['name' => 'Zoë "Z" \\ Q', 'address' => ['city' => 'Oslo', 'lines' => ['a', 'b']]], $request->getParsedBody());
        $files = $request->getUploadedFiles();
        self::assertInstanceOf(UploadedFile::class, $files['avatar']);
        self::assertSame(['me.png', 'image/png', 'PNG…'], [$files['avatar']->getClientFilename(), $files['avatar']->getClientMediaType(), \file_get_contents((string) $files['avatar']->getTempPath())]);
        self::assertIsArray($files['docs']);
        self::assertSame('first file', \file_get_contents((string) $files['docs'][0]->getTempPath()));
        self::assertSame("second\r\n--file", \file_get_contents((string) $files['docs'][1]->getTempPath()));
        self::assertSame(\UPLOAD_ERR_NO_FILE, $files['docs'][2]->getError());
        self::assertStringStartsWith('multipart/form-data; boundary=----petrel', (string) $request->getHeader('content-type'));
        self::assertSame((string) $request->getBodySize(), $request->getHeader('content-length'));
    }

    /**
     * A form whose only fields are unchecked boxes posts a multipart body with no part:
     * PHP parses it to nothing and leaves php://input empty. It is an empty form (as in
     * resident mode), not a broken body (it was a 400 in classic mode).
     */
    public function testAnEmptyMultipartFormIsAnEmptyForm(): void
    {
        $request = GlobalsRequest::fromArrays(
            ['REQUEST_METHOD' => 'POST', 'REQUEST_URI' => '/', 'CONTENT_TYPE' => 'multipart/form-data; boundary=zz', 'CONTENT_LENGTH' => '8'],
            [],
            [],
            [],
            '/dev/null',
        );
        self::assertSame([], $request->getParsedBody());
        self::assertSame([], $request->getUploadedFiles());

        // With enable_post_data_reading off PHP leaves the body where it was: read as sent.
        $raw = $this->tempFile("--zz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--zz--\r\n");
        $request = GlobalsRequest::fromArrays(
            ['REQUEST_METHOD' => 'POST', 'REQUEST_URI' => '/', 'CONTENT_TYPE' => 'multipart/form-data; boundary=zz'],
            [],
            [],
            [],
            $raw,
        );
        self::assertSame(['a' => '1'], $request->getParsedBody());
    }

    private function tempFile(string $content): string
    {
        $file = (string) \tempnam(\sys_get_temp_dir(), 'petrel-classic-');
        \file_put_contents($file, $content);

        return $this->files[] = $file;
    }
}
