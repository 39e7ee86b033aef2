<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * Limits applied while parsing HTTP/1.1 requests. Defaults follow nginx where nginx has an
 * equivalent; every limit is a plain public field, changed through a with*() copy.
 *
 * Which status a broken limit produces:
 *  - request line longer than $maxRequestLineBytes          → 414
 *  - head (request line + fields) over $maxHeaderBytes      → 431
 *  - more than $maxHeaderCount field lines (also trailers)  → 431
 *  - body over $maxBodyBytes (by Content-Length or chunks)  → 413
 *  - form field over $maxFormFieldBytes                     → 413
 *  - more than $maxFormFields fields / $maxUploadFiles files → 400
 *  - more form or query pairs than the max_input_vars ini setting, or a field name nested
 *    deeper than max_input_nesting_level ("a[b][c]…", 64 by default) → 400, where PHP
 *    would drop the field and log a warning
 *
 * Which status a request gets depends on its bytes alone, never on how they were split
 * into reads: an error that a shorter prefix of the input already proves wins.
 *
 * Bodies larger than $bodyMemoryBytes are spooled to a php://temp stream instead of being
 * held in a string.
 */
final readonly class HttpLimits
{
    public const DEFAULT_MAX_REQUEST_LINE_BYTES = 8192;
    public const DEFAULT_MAX_HEADER_BYTES = 16384;
    public const DEFAULT_MAX_HEADER_COUNT = 100;
    public const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
    public const DEFAULT_BODY_MEMORY_BYTES = 1024 * 1024;
    public const DEFAULT_MAX_FORM_FIELDS = 1000;
    public const DEFAULT_MAX_FORM_FIELD_BYTES = 1024 * 1024;
    public const DEFAULT_MAX_UPLOAD_FILES = 20;

    public function __construct(
        public int $maxRequestLineBytes = self::DEFAULT_MAX_REQUEST_LINE_BYTES,
        public int $maxHeaderBytes = self::DEFAULT_MAX_HEADER_BYTES,
        public int $maxHeaderCount = self::DEFAULT_MAX_HEADER_COUNT,
        public int $maxBodyBytes = self::DEFAULT_MAX_BODY_BYTES,
        public int $bodyMemoryBytes = self::DEFAULT_BODY_MEMORY_BYTES,
        public int $maxFormFields = self::DEFAULT_MAX_FORM_FIELDS,
        public int $maxFormFieldBytes = self::DEFAULT_MAX_FORM_FIELD_BYTES,
        public int $maxUploadFiles = self::DEFAULT_MAX_UPLOAD_FILES,
    ) {
        foreach (get_object_vars($this) as $name => $value) {
            if ($value < 0 || ($value === 0 && $name !== 'bodyMemoryBytes' && $name !== 'maxUploadFiles')) {
                throw new \ValueError(sprintf('HttpLimits::$%s must be positive, got %d', $name, $value));
            }
        }
    }

    public function withMaxRequestLineBytes(int $bytes): self
    {
        return $this->with('maxRequestLineBytes', $bytes);
    }

    public function withMaxHeaderBytes(int $bytes): self
    {
        return $this->with('maxHeaderBytes', $bytes);
    }

    public function withMaxHeaderCount(int $count): self
    {
        return $this->with('maxHeaderCount', $count);
    }

    public function withMaxBodyBytes(int $bytes): self
    {
        return $this->with('maxBodyBytes', $bytes);
    }

    public function withBodyMemoryBytes(int $bytes): self
    {
        return $this->with('bodyMemoryBytes', $bytes);
    }

    public function withMaxFormFields(int $count): self
    {
        return $this->with('maxFormFields', $count);
    }

    public function withMaxFormFieldBytes(int $bytes): self
    {
        return $this->with('maxFormFieldBytes', $bytes);
    }

    public function withMaxUploadFiles(int $count): self
    {
        return $this->with('maxUploadFiles', $count);
    }

    private function with(string $name, int $value): self
    {
        $values = get_object_vars($this);
        $values[$name] = $value;

        return new self(...$values);
    }
}
