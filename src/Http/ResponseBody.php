<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * A response body that is not a plain string: written by the connection piece by piece
 * (FileBody, StreamBody).
 */
interface ResponseBody
{
    /** Byte length when known up front (sent as Content-Length), null to use chunking. */
    public function getLength(): ?int;
}
