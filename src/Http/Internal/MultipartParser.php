<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\UploadedFile;

/**
 * Streaming multipart/form-data parser (RFC 7578, RFC 2046 §5.1). Reads the body in
 * READ_BYTES pieces, so a large upload goes from the request's spool stream to a temporary
 * file without ever being held in memory; fields are collected as strings.
 *
 * Limits: more than maxFormFields parts or maxUploadFiles files → 400, a field over
 * maxFormFieldBytes → 413, any syntax error → 400.
 *
 * Line ends may be bare LFs, as PHP's own parser takes them (hand-written clients and
 * scripts send them): a delimiter is "\n--boundary" with the CR before it, if any, not part
 * of the content, and part heads' lines end in CRLF or LF.
 *
 * @internal
 */
final class MultipartParser
{
    public const READ_BYTES = 65536;

    private const MAX_PART_HEAD_BYTES = 8192;

    private string $buffer = "\n";

    private int $pos = 0;

    private bool $eof = false;

    private readonly string $delimiter;

    private readonly TempFiles $tempFiles;

    /** @param string|resource $source the whole body, or a stream positioned at its start */
    public function __construct(private readonly HttpLimits $limits, private mixed $source, string $boundary)
    {
        // The leading LF lets a delimiter at the very start match "\n--boundary".
        $this->delimiter = "\n--" . $boundary;
        $this->tempFiles = new TempFiles();
    }

    /**
     * The boundary parameter of a multipart Content-Type, quoted or not.
     *
     * @throws HttpException 400 when missing or invalid
     */
    public static function boundary(string $contentType): string
    {
        if (\preg_match('~;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^;\s"]{1,70}))~i', $contentType, $m) !== 1) {
            throw new HttpException(400, 'Missing or invalid multipart boundary');
        }
        $boundary = $m[1] !== '' ? $m[1] : ($m[2] ?? '');
        if (\str_ends_with($boundary, ' ') || !FieldLines::isLineSafe($boundary)) {
            throw new HttpException(400, 'Invalid multipart boundary');
        }

        return $boundary;
    }

    /**
     * @return array{fields: list<array{string, string}>, files: list<array{string, UploadedFile}>, tempFiles: TempFiles}
     * @throws HttpException
     */
    public function parse(): array
    {
        $fields = [];
        $files = [];
        $uploads = 0; // files chosen: an empty file input (filename "") does not count, as in PHP
        $this->skipPreamble();
        while ($this->startPart()) {
            if (\count($fields) + \count($files) >= $this->limits->maxFormFields) {
                throw new HttpException(400, 'Too many multipart parts');
            }
            [$name, $filename, $mediaType] = $this->readPartHead();
            if ($filename === null) {
                $fields[] = [$name, $this->readField()];
            } elseif ($filename !== '' && $uploads++ >= $this->limits->maxUploadFiles) {
                throw new HttpException(400, 'Too many uploaded files');
            } else {
                $files[] = [$name, $this->readFile($filename, $mediaType)];
            }
        }

        return ['fields' => $fields, 'files' => $files, 'tempFiles' => $this->tempFiles];
    }

    private function skipPreamble(): void
    {
        while (($found = \strpos($this->buffer, $this->delimiter, $this->pos)) === false) {
            $this->pos = \max($this->pos, \strlen($this->buffer) - \strlen($this->delimiter) + 1);
            if (!$this->fill()) {
                throw new HttpException(400, 'Multipart boundary not found');
            }
        }
        $this->pos = $found + \strlen($this->delimiter);
    }

    /** After a delimiter: true when a part follows, false at the close delimiter. */
    private function startPart(): bool
    {
        $this->ensure(2 + 64); // "--", or transport padding and CRLF
        if ($this->startsWith('--')) {
            return false;
        }
        $this->pos += \strspn($this->buffer, " \t", $this->pos, 64);
        $this->pos += $this->startsWith("\r\n") ? 2 : ($this->startsWith("\n") ? 1 : throw new HttpException(400, 'Malformed multipart delimiter'));

        return true;
    }

    /** @return array{string, ?string, ?string} field name, file name (null for a field), media type */
    private function readPartHead(): array
    {
        $headers = [];
        $this->ensure(2);
        if ($this->startsWith("\r\n") || $this->startsWith("\n")) {
            $this->pos += $this->buffer[$this->pos] === "\r" ? 2 : 1;
        } else {
            // The head's length is checked where it ends, not by what was buffered: a body
            // held in memory is all in the buffer, and a read brings more than the limit. A
            // head within the limit has its blank line within its next MAX + 2 bytes.
            while (\preg_match('/\r?\n\r?\n/', $this->buffer, $end, \PREG_OFFSET_CAPTURE, $this->pos) !== 1) {
                if (\strlen($this->buffer) - $this->pos > self::MAX_PART_HEAD_BYTES + 2) {
                    throw new HttpException(400, 'Multipart part header too large');
                }
                if (!$this->fill()) {
                    throw new HttpException(400, 'Malformed multipart part header');
                }
            }
            [$blankLine, $at] = $end[0];
            if ($at + 2 - $this->pos > self::MAX_PART_HEAD_BYTES) { // its last line's CRLF counted
                throw new HttpException(400, 'Multipart part header too large');
            }
            $lines = \preg_split('/\r?\n/', \substr($this->buffer, $this->pos, $at - $this->pos)) ?: [];
            $this->pos = $at + \strlen($blankLine);
            $block = \implode("\r\n", $lines); // the check counts CRLFs: a stray CR is refused
            if (!FieldLines::isBlockSafe($block, \count($lines))) {
                throw new HttpException(400, 'Invalid character in multipart part header');
            }
            $headers = FieldLines::parse($lines, 0);
        }
        $params = ContentDisposition::parse($headers['content-disposition'][0] ?? '');
        if ($params === null || !isset($params['name'])) {
            throw new HttpException(400, 'Multipart part without form-data name');
        }

        return [$params['name'], ContentDisposition::filename($params), $headers['content-type'][0] ?? null];
    }

    private function readField(): string
    {
        $value = '';
        $done = false;
        do {
            $value .= $this->nextBodyPiece($done);
            if (\strlen($value) > $this->limits->maxFormFieldBytes) {
                throw new HttpException(413, 'Form field too large');
            }
        } while (!$done);

        return $value;
    }

    private function readFile(string $filename, ?string $mediaType): UploadedFile
    {
        $path = null;
        $handle = null;
        $size = 0;
        $done = false;
        try {
            do {
                $chunk = $this->nextBodyPiece($done);
                if ($chunk === '') {
                    continue;
                }
                if ($handle === null) {
                    $path = $this->tempFiles->create();
                    $handle = \fopen($path, 'wb') ?: throw new HttpException(500, 'Could not open an upload file');
                }
                if (\fwrite($handle, $chunk) !== \strlen($chunk)) {
                    throw new HttpException(500, 'Could not write an upload file');
                }
                $size += \strlen($chunk);
            } while (!$done);
        } finally {
            if ($handle !== null) {
                \fclose($handle);
            }
        }
        if ($path === null) {
            if ($filename === '') {
                return new UploadedFile(null, 0, \UPLOAD_ERR_NO_FILE, '', $mediaType);
            }
            $path = $this->tempFiles->create();
        }

        return new UploadedFile($path, $size, \UPLOAD_ERR_OK, $filename, $mediaType, $this->tempFiles);
    }

    /**
     * The next piece of the current part's content; sets $done when the delimiter that ends
     * the part was reached (the returned piece is then the last one).
     */
    private function nextBodyPiece(bool &$done): string
    {
        $found = \strpos($this->buffer, $this->delimiter, $this->pos);
        if ($found !== false) {
            $end = $found > $this->pos && $this->buffer[$found - 1] === "\r" ? $found - 1 : $found;
            $piece = \substr($this->buffer, $this->pos, $end - $this->pos);
            $this->pos = $found + \strlen($this->delimiter);
            $done = true;

            return $piece;
        }
        $done = false;
        // Everything but a possible partial delimiter at the end, and the byte before it
        // (a CR that belongs to the delimiter), is content.
        $safe = \strlen($this->buffer) - \strlen($this->delimiter);
        $piece = '';
        if ($safe > $this->pos) {
            $piece = \substr($this->buffer, $this->pos, $safe - $this->pos);
            $this->pos = $safe;
        }
        if (!$this->fill()) {
            throw new HttpException(400, 'Unterminated multipart body');
        }

        return $piece;
    }

    /** Reads until $bytes are buffered after the position or the input ends. */
    private function ensure(int $bytes): void
    {
        while (\strlen($this->buffer) - $this->pos < $bytes && $this->fill()) {
            continue;
        }
    }

    private function startsWith(string $prefix): bool
    {
        return \strlen($this->buffer) - $this->pos >= \strlen($prefix)
            && \substr_compare($this->buffer, $prefix, $this->pos, \strlen($prefix)) === 0;
    }

    /** Reads more input into the buffer; false at the end of the body. */
    private function fill(): bool
    {
        if ($this->eof) {
            return false;
        }
        if (\is_string($this->source)) {
            $chunk = $this->source;
            $this->source = '';
            $this->eof = true;
        } else {
            $chunk = \fread($this->source, self::READ_BYTES);
            if ($chunk === false || ($chunk === '' && \feof($this->source))) {
                $this->eof = true;

                return false;
            }
        }
        $this->buffer = \substr($this->buffer, $this->pos) . $chunk;
        $this->pos = 0;

        return $chunk !== '';
    }
}
