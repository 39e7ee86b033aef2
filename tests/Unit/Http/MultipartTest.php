<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\ContentDisposition;
use Petrel\Http\Internal\FormData;
use Petrel\Http\Internal\MultipartParser;
use Petrel\Http\Internal\TempFiles;
use Petrel\Http\Request;
use Petrel\Http\UploadedFile;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(MultipartParser::class)]
#[CoversClass(ContentDisposition::class)]
#[CoversClass(FormData::class)]
#[CoversClass(TempFiles::class)]
#[CoversClass(UploadedFile::class)]
final class MultipartTest extends TestCase
{
    private const BOUNDARY = '----petrel Boundary 7MA4YWxk';

    /** @var list<string> */
    private array $cleanup = [];

    protected function tearDown(): void
    {
        foreach ($this->cleanup as $path) {
            if (\is_file($path)) {
                \unlink($path);
            }
        }
    }

    /** @param list<array{string, string, 2?: string|null, 3?: string|null}> $parts name, content, filename, type */
    private static function body(array $parts, string $boundary = self::BOUNDARY): string
    {
        $body = "preamble to ignore\r\n";
        foreach ($parts as $part) {
            $body .= "--$boundary\r\nContent-Disposition: form-data; name=\"{$part[0]}\"";
            if (isset($part[2])) {
                $body .= "; filename=\"{$part[2]}\"";
            }
            $body .= "\r\n";
            if (isset($part[3])) {
                $body .= "Content-Type: {$part[3]}\r\n";
            }
            $body .= "\r\n{$part[1]}\r\n";
        }

        return $body . "--$boundary--\r\nepilogue to ignore";
    }

    private static function request(string $body, ?HttpLimits $limits = null, string $boundary = self::BOUNDARY): Request
    {
        $head = "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=\"$boundary\"\r\n"
            . 'Content-Length: ' . \strlen($body) . "\r\n\r\n";
        $requests = ParserHarness::feedPieces(\str_split($head . $body, 8192), $limits);
        self::assertCount(1, $requests);

        return $requests[0];
    }

    public function testFieldsAndTwoFiles(): void
    {
        $request = self::request(self::body([
            ['title', 'Hello, multipart'],
            ['tags[]', 'a'],
            ['tags[]', "line1\r\nline2"],
            ['avatar', "\x89PNG binary \r\n-- not a boundary", 'me.png', 'image/png'],
            ['docs[]', 'plain text', 'notes.txt', 'text/plain'],
            ['empty', '', ''],
        ]));
        self::assertSame(['title' => 'Hello, multipart', 'tags' => ['a', "line1\r\nline2"]], $request->getParsedBody());
        $files = $request->getUploadedFiles();
        self::assertInstanceOf(UploadedFile::class, $files['avatar']);
        self::assertSame('me.png', $files['avatar']->getClientFilename());
        self::assertSame('image/png', $files['avatar']->getClientMediaType());
        self::assertSame("\x89PNG binary \r\n-- not a boundary", $files['avatar']->getContents());
        self::assertSame(\strlen("\x89PNG binary \r\n-- not a boundary"), $files['avatar']->getSize());
        self::assertSame(\UPLOAD_ERR_OK, $files['avatar']->getError());
        self::assertIsArray($files['docs']);
        self::assertInstanceOf(UploadedFile::class, $files['docs'][0]);
        self::assertSame('plain text', \stream_get_contents($files['docs'][0]->getStream()));
        self::assertInstanceOf(UploadedFile::class, $files['empty']);
        self::assertSame(\UPLOAD_ERR_NO_FILE, $files['empty']->getError(), 'an empty file input');
        self::assertNull($files['empty']->getTempPath());
    }

    /**
     * A form with more optional file inputs than maxUploadFiles, mostly left empty: PHP
     * does not count empty inputs against max_file_uploads, and neither does the limit.
     */
    public function testEmptyFileInputsDoNotCountAgainstTheUploadLimit(): void
    {
        $parts = \array_fill(0, 5, ['photo[]', '', '']);
        $parts[] = ['photo[]', 'the one chosen', 'me.jpg', 'image/jpeg'];
        $request = self::request(self::body($parts), (new HttpLimits())->withMaxUploadFiles(1));
        $photos = $request->getUploadedFiles()['photo'] ?? null;
        self::assertIsArray($photos);
        self::assertCount(6, $photos);
        self::assertSame(\UPLOAD_ERR_NO_FILE, $photos[0]->getError());
        self::assertSame('the one chosen', $photos[5]->getContents());
    }

    public function testUnquotedBoundaryAndFilenameVariants(): void
    {
        $body = "--b0undary\r\n"
            . "Content-Disposition: form-data; name=a; filename=\"C:\\\\Users\\\\eve\\\\evil.txt\"\r\n\r\nx\r\n"
            . "--b0undary\r\n"
            . "Content-Disposition: form-data; name=\"b\"; filename*=UTF-8''%E2%82%AC%20rates.txt\r\n\r\ny\r\n"
            . "--b0undary\r\nContent-Disposition: form-data; name=\"c\"; filename=\"../..\"\r\n\r\nz\r\n"
            . "--b0undary--";
        $request = Request::create('POST', '/', ['Content-Type' => 'multipart/form-data; charset=utf-8; boundary=b0undary'], $body);
        $files = $request->getUploadedFiles();
        self::assertInstanceOf(UploadedFile::class, $files['a']);
        self::assertInstanceOf(UploadedFile::class, $files['b']);
        self::assertInstanceOf(UploadedFile::class, $files['c']);
        self::assertSame('evil.txt', $files['a']->getClientFilename());
        self::assertSame('€ rates.txt', $files['b']->getClientFilename());
        self::assertSame('', $files['c']->getClientFilename());
        self::assertNull($files['a']->getClientMediaType());
    }

    /**
     * Inside quotes only \\ and \" are escapes, as in PHP (main/rfc1867.c): browsers never
     * escape, and old IE/Edge send the whole Windows path with bare backslashes.
     *
     * @return iterable<string, array{string, array<string, string>, string|null}>
     */
    public static function dispositions(): iterable
    {
        yield 'IE path, bare backslashes' => ['form-data; name="f"; filename="C:\Users\me\doc.txt"', ['name' => 'f', 'filename' => 'C:\Users\me\doc.txt'], 'doc.txt'];
        yield 'escaped backslashes' => ['form-data; name="f"; filename="C:\\\\Users\\\\doc.txt"', ['name' => 'f', 'filename' => 'C:\\Users\\doc.txt'], 'doc.txt'];
        yield 'backslash in a name' => ['form-data; name="a\b"', ['name' => 'a\b'], null];
        yield 'backslash before another letter' => ['form-data; name="f"; filename="x\n.txt"', ['name' => 'f', 'filename' => 'x\n.txt'], 'n.txt'];
        yield 'escaped quote stays in one value' => ['form-data; name="a\"; b=c"; filename="x.txt"', ['name' => 'a"; b=c', 'filename' => 'x.txt'], 'x.txt'];
        // \" always escapes: "a\" is not closed, and (as in PHP) runs to the end of the header.
        yield 'backslash before the closing quote' => ['form-data; name="f"; filename="a\"', ['name' => 'f', 'filename' => 'a"'], 'a"'];
        yield 'unterminated quote swallows what follows' => ['form-data; filename="a\"; name="f"', ['filename' => 'a"; name='], 'a"; name='];
        yield 'filename wins over filename*' => ['form-data; name="f"; filename*=UTF-8\'\'%E2%82%AC.txt; filename="plain.txt"', ['name' => 'f', 'filename*' => "UTF-8''%E2%82%AC.txt", 'filename' => 'plain.txt'], 'plain.txt'];
        yield 'an empty filename wins too' => ['form-data; name="f"; filename=""; filename*=UTF-8\'\'x.txt', ['name' => 'f', 'filename' => '', 'filename*' => "UTF-8''x.txt"], ''];
        yield 'filename* alone' => ['form-data; name="f"; filename*=ISO-8859-1\'en\'%A3%20rates.txt', ['name' => 'f', 'filename*' => "ISO-8859-1'en'%A3%20rates.txt"], '£ rates.txt'];
        yield 'undecodable filename* alone' => ['form-data; name="f"; filename*=UTF-16\'\'x.txt', ['name' => 'f', 'filename*' => "UTF-16''x.txt"], null];
    }

    /** @param array<string, string> $params */
    #[DataProvider('dispositions')]
    public function testContentDispositionParameters(string $value, array $params, ?string $filename): void
    {
        self::assertSame($params, ContentDisposition::parse($value));
        self::assertSame($filename, ContentDisposition::filename($params));
    }

    public function testBackslashesInNamesAndIePathsReachTheForm(): void
    {
        $body = "--x\r\nContent-Disposition: form-data; name=\"a\\b\"\r\n\r\nfield\r\n"
            . "--x\r\nContent-Disposition: form-data; name=\"q\\\"uote\"\r\n\r\nquoted\r\n"
            . "--x\r\nContent-Disposition: form-data; name=\"up\"; filename=\"C:\\Users\\me\\doc.txt\"\r\n\r\nfile\r\n"
            . "--x--\r\n";
        $request = Request::create('POST', '/', ['Content-Type' => 'multipart/form-data; boundary=x'], $body);
        self::assertSame(['a\\b' => 'field', 'q"uote' => 'quoted'], $request->getParsedBody());
        $file = $request->getUploadedFiles()['up'];
        self::assertInstanceOf(UploadedFile::class, $file);
        self::assertSame('doc.txt', $file->getClientFilename());
        self::assertSame('file', $file->getContents());
    }

    public function testLargeUploadIsStreamedToATempFileAndDeletedWithTheRequest(): void
    {
        $content = '';
        for ($i = 0; \strlen($content) < 3 * 1024 * 1024; ++$i) {
            $content .= \hash('sha256', (string) $i, true) . \str_repeat(\chr($i % 256), 32);
        }
        $checksum = \sha1($content);
        $size = \strlen($content);
        $request = self::request(self::body([['note', 'big one'], ['blob', $content, 'big.bin', 'application/octet-stream']]));
        unset($content);
        self::assertTrue($request->isBodySpooled(), 'a 3 MB body is spooled, not held in a string');

        $before = \memory_get_usage();
        \memory_reset_peak_usage();
        $files = $request->getUploadedFiles();
        $peak = \memory_get_peak_usage() - $before;
        self::assertLessThan(1024 * 1024, $peak, 'parsing the upload must not load it into memory');

        $file = $files['blob'];
        self::assertInstanceOf(UploadedFile::class, $file);
        $path = (string) $file->getTempPath();
        $this->cleanup[] = $path;
        self::assertStringStartsWith(\sys_get_temp_dir() . \DIRECTORY_SEPARATOR . 'petrel-upload-', $path);
        self::assertSame($size, $file->getSize());
        self::assertSame($size, \filesize($path));
        self::assertSame($checksum, \sha1_file($path));
        self::assertSame(['note' => 'big one'], $request->getParsedBody());

        unset($request, $files);
        self::assertFileExists($path, 'still referenced by the UploadedFile');
        unset($file);
        self::assertFileDoesNotExist($path, 'deleted once the request and its files are released');
    }

    public function testMovedFilesAreNotDeleted(): void
    {
        $request = Request::create(
            'POST',
            '/',
            ['Content-Type' => 'multipart/form-data; boundary=x'],
            "--x\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\n\r\nkeep me\r\n--x--\r\n",
        );
        $file = $request->getUploadedFiles()['f'];
        self::assertInstanceOf(UploadedFile::class, $file);
        $target = \sys_get_temp_dir() . '/petrel-test-moved-' . \bin2hex(\random_bytes(4));
        $this->cleanup[] = $target;
        $file->moveTo($target);
        self::assertTrue($file->isMoved());
        self::assertNull($file->getTempPath());
        unset($request, $file);
        self::assertSame('keep me', \file_get_contents($target));
    }

    public function testTempFilesOfAFailedParseAreDeleted(): void
    {
        $pattern = \sys_get_temp_dir() . '/petrel-upload-*';
        $before = \glob($pattern) ?: [];
        $request = Request::create(
            'POST',
            '/',
            ['Content-Type' => 'multipart/form-data; boundary=x'],
            "--x\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\n\r\ncut off in the middle",
        );
        try {
            $request->getUploadedFiles();
            self::fail('expected an HttpException');
        } catch (HttpException $e) {
            self::assertSame(400, $e->getStatus());
        }
        unset($e);
        self::assertSame($before, \glob($pattern) ?: []);
    }

    /** @return iterable<string, array{string, string, int, 3?: HttpLimits}> */
    public static function malformed(): iterable
    {
        $part = "Content-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n";
        yield 'no boundary parameter' => ['multipart/form-data', "--x\r\n$part--x--", 400];
        yield 'boundary never appears' => ['multipart/form-data; boundary=x', 'no delimiters at all', 400];
        yield 'no close delimiter' => ['multipart/form-data; boundary=x', "--x\r\n$part", 400];
        yield 'junk after delimiter' => ['multipart/form-data; boundary=x', "--xjunk\r\n$part--x--", 400];
        yield 'part head never ends' => ['multipart/form-data; boundary=x', "--x\r\nContent-Disposition: form-data; name=a\r\n", 400];
        yield 'part without disposition' => ['multipart/form-data; boundary=x', "--x\r\nContent-Type: text/plain\r\n\r\nv\r\n--x--", 400];
        yield 'part without name' => ['multipart/form-data; boundary=x', "--x\r\nContent-Disposition: form-data\r\n\r\nv\r\n--x--", 400];
        yield 'attachment disposition' => ['multipart/form-data; boundary=x', "--x\r\nContent-Disposition: attachment; name=a\r\n\r\nv\r\n--x--", 400];
        yield 'obs-fold in part head' => ['multipart/form-data; boundary=x', "--x\r\nContent-Disposition: form-data;\r\n name=a\r\n\r\nv\r\n--x--", 400];
        yield 'too many fields' => [
            'multipart/form-data; boundary=x', "--x\r\n$part--x\r\n$part--x\r\n$part--x--", 400,
            (new HttpLimits())->withMaxFormFields(2),
        ];
        yield 'too many files' => [
            'multipart/form-data; boundary=x',
            "--x\r\nContent-Disposition: form-data; name=f; filename=a\r\n\r\n1\r\n--x\r\nContent-Disposition: form-data; name=g; filename=b\r\n\r\n2\r\n--x--",
            400,
            (new HttpLimits())->withMaxUploadFiles(1),
        ];
        $deep = 'a' . \str_repeat('[b]', 65);
        yield 'field name nested 65 deep' => ['multipart/form-data; boundary=x', "--x\r\nContent-Disposition: form-data; name=\"$deep\"\r\n\r\nv\r\n--x--", 400];
        yield 'file name nested 65 deep' => [
            'multipart/form-data; boundary=x',
            "--x\r\nContent-Disposition: form-data; name=\"$deep\"; filename=a\r\n\r\n1\r\n--x--",
            400,
        ];
        yield 'field too large' => ['multipart/form-data; boundary=x', "--x\r\n$part--x--", 413, (new HttpLimits())->withMaxFormFieldBytes(4)];
    }

    #[DataProvider('malformed')]
    public function testMalformedMultipartIsRejected(string $contentType, string $body, int $status, ?HttpLimits $limits = null): void
    {
        $head = "POST / HTTP/1.1\r\nHost: a\r\nContent-Type: $contentType\r\nContent-Length: " . \strlen($body) . "\r\n\r\n";
        [$request] = ParserHarness::whole($head . $body, $limits);
        $warnings = [];
        \set_error_handler(static function (int $severity, string $message) use (&$warnings): bool {
            $warnings[] = $message;

            return true;
        });
        try {
            $request->getParsedBody();
            self::fail('expected an HttpException');
        } catch (HttpException $e) {
            self::assertSame($status, $e->getStatus(), $e->getMessage());
        } finally {
            \restore_error_handler();
        }
        self::assertSame([], $warnings, 'bad input must not reach the log');
    }

    /**
     * A part's head may be 8 KiB (MultipartParser::MAX_PART_HEAD_BYTES: its lines with their
     * CRLFs, the blank line after them not counted) however the body is held. A body kept in memory had no limit at all (a
     * 1 MiB head was parsed); a spooled one refused a head that was exactly 8 KiB.
     */
    #[DataProvider('bodyHolders')]
    public function testAPartHeadIsLimitedTo8KibInMemoryAndSpooledAlike(HttpLimits $limits): void
    {
        $head = static function (int $bytes): string {
            $line = 'Content-Disposition: form-data; name="a"';
            $filler = 'X-Filler: ';

            // $bytes with the lines' CRLFs, then the blank line.
            return "{$line}\r\n{$filler}" . \str_repeat('f', $bytes - \strlen("{$line}\r\n{$filler}\r\n")) . "\r\n\r\n";
        };
        foreach ([8192 => true, 8193 => false, 1048576 => false] as $bytes => $accepted) {
            $body = "--x\r\n" . $head($bytes) . "value\r\n--x--\r\n";
            [$request] = ParserHarness::whole("POST / HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: " . \strlen($body) . "\r\n\r\n{$body}", $limits);
            try {
                self::assertSame(['a' => 'value'], $request->getParsedBody(), "a head of {$bytes} bytes");
                self::assertTrue($accepted, "a head of {$bytes} bytes was accepted");
            } catch (HttpException $e) {
                self::assertFalse($accepted, "a head of {$bytes} bytes: {$e->getMessage()}");
                self::assertSame([400, 'Multipart part header too large'], [$e->getStatus(), $e->getReason()]);
            }
        }
    }

    /** @return array<string, array{HttpLimits}> */
    public static function bodyHolders(): array
    {
        return [
            'in memory' => [(new HttpLimits())->withMaxBodyBytes(2 << 20)->withBodyMemoryBytes(2 << 20)],
            'spooled' => [(new HttpLimits())->withMaxBodyBytes(2 << 20)->withBodyMemoryBytes(0)],
        ];
    }

    public function testNamesNestedUpToTheLimitAreAccepted(): void
    {
        $path = \str_repeat('[b]', 63);
        $request = self::request(self::body([["a{$path}[b]", 'v'], ["f{$path}[]", 'file', 'f.txt']]));
        $field = $request->getParsedBody()['a'];
        $file = $request->getUploadedFiles()['f'];
        for ($i = 0; $i < 63; ++$i) {
            self::assertIsArray($field);
            self::assertIsArray($file);
            $field = $field['b'];
            $file = $file['b'];
        }
        self::assertSame(['b' => 'v'], $field);
        self::assertIsArray($file);
        self::assertInstanceOf(UploadedFile::class, $file[0]);
    }

    /**
     * Files are nested by their field names as the fields are, by parse_str's rules (PHP's
     * for $_POST and $_FILES): "user.avatar" and " my file" name "user_avatar" and
     * "my_file", where files kept the names as sent while fields did not.
     */
    public function testFileFieldNamesAreTakenAsPhpTakesThem(): void
    {
        $request = self::request(self::body([
            ['user.avatar', 'png', 'a.png'],
            [' my file', 'txt', 'b.txt'],
            ['docs[x][]', 'one', 'c.txt'],
            ['docs[x][]', 'two', 'd.txt'],
            ['docs[y.z]', 'three', 'e.txt'],
            ['user.name', 'eve'],
        ]));
        self::assertSame(['user_name' => 'eve'], $request->getParsedBody());
        $files = $request->getUploadedFiles();
        self::assertSame(['user_avatar', 'my_file', 'docs'], \array_keys($files));
        self::assertInstanceOf(UploadedFile::class, $files['user_avatar']);
        self::assertSame('a.png', $files['user_avatar']->getClientFilename());
        self::assertIsArray($files['docs']);
        self::assertIsArray($files['docs']['x']);
        self::assertSame(['one', 'two'], \array_map(static fn (UploadedFile $f): string => $f->getContents(), $files['docs']['x']));
        self::assertInstanceOf(UploadedFile::class, $files['docs']['y.z']);
        self::assertSame('three', $files['docs']['y.z']->getContents());
    }

    /** PHP's parser takes bare LF line ends (hand-written clients send them); they got a 400. */
    public function testBareLfLineEndsAreTakenAsPhpTakesThem(): void
    {
        $lf = \str_replace("\r\n", "\n", self::body([['a', '1'], ['b', "two\r\nlines"], ['f', "hi\n", 'x.txt', 'text/plain'], ['empty', '']]));
        $lf = \str_replace("two\nlines", "two\r\nlines", $lf); // a CRLF within a value is content
        $request = self::request($lf);
        self::assertSame(['a' => '1', 'b' => "two\r\nlines", 'empty' => ''], $request->getParsedBody());
        $file = $request->getUploadedFiles()['f'];
        self::assertInstanceOf(UploadedFile::class, $file);
        self::assertSame(['x.txt', 'text/plain', "hi\n"], [$file->getClientFilename(), $file->getClientMediaType(), $file->getContents()]);

        // Mixed: CRLF delimiters with LF-only part heads, and the other way round.
        $mixed = "--x\r\nContent-Disposition: form-data; name=\"a\"\n\n1\r\n--x\nContent-Disposition: form-data; name=\"b\"\r\n\r\n2\n--x--";
        $head = "POST / HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: " . \strlen($mixed) . "\r\n\r\n";
        self::assertSame(['a' => '1', 'b' => '2'], ParserHarness::whole($head . $mixed)[0]->getParsedBody());
    }

    /** The delimiter (and the CR before it) at every offset across the parser's 64 KiB reads. */
    public function testDelimitersAtEveryOffsetOfAReadAreFound(): void
    {
        $limits = (new HttpLimits())->withBodyMemoryBytes(0);
        $body = static fn (string $eol, int $pad): string => \str_replace("\r\n", $eol, self::body([['first', \str_repeat('~', $pad)], ['second', 'two']]));
        foreach (["\r\n", "\n"] as $eol) {
            $contentStart = \strpos($body($eol, 1), '~');
            $delimiter = \strlen($eol . '--' . self::BOUNDARY);
            // The first read ends $cut bytes into the line end and delimiter after the content.
            for ($cut = -2; $cut <= $delimiter + 2; $cut++) {
                $pad = MultipartParser::READ_BYTES - $contentStart - $cut;
                $request = self::request($body($eol, $pad), $limits);
                self::assertSame(['first' => \str_repeat('~', $pad), 'second' => 'two'], $request->getParsedBody(), 'line ends ' . \json_encode($eol) . ", cut {$cut}");
            }
        }
    }

    public function testPartsSplitAcrossReadBoundaries(): void
    {
        // Bodies spooled to a stream are read in 64 KiB pieces: put delimiters across them.
        $limits = (new HttpLimits())->withBodyMemoryBytes(0);
        foreach ([MultipartParser::READ_BYTES - 120, MultipartParser::READ_BYTES - 20, MultipartParser::READ_BYTES - 3] as $pad) {
            $body = self::body([['first', \str_repeat('p', $pad)], ['second', 'two'], ['f', \str_repeat('q', 70000), 'q.txt']]);
            $request = self::request($body, $limits);
            self::assertTrue($request->isBodySpooled());
            self::assertSame(['first' => \str_repeat('p', $pad), 'second' => 'two'], $request->getParsedBody());
            $file = $request->getUploadedFiles()['f'];
            self::assertInstanceOf(UploadedFile::class, $file);
            self::assertSame(70000, $file->getSize());
        }
    }
}
