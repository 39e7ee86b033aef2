<?php

declare(strict_types=1);

namespace Blog\Middleware;

use Petrel\Coroutine\Context;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;

/**
 * Gives every request an id for logs and support tickets: the X-Request-Id a proxy sent
 * (if it looks like one), else a new random one. Handlers read it from the request
 * attribute RequestId::class; the error logger, which has no request at hand, from the
 * coroutine's Context. The response carries it back in X-Request-Id.
 */
final class RequestId implements Middleware
{
    public const HEADER = 'X-Request-Id';

    /**
     * New ids come from random bytes read this many at a time: a getrandom() syscall per 256
     * requests rather than per request. Each worker loads the app after the fork, so workers
     * never share a buffer.
     */
    private const RANDOM_BYTES = 8 * 256;

    private string $random = '';
    private int $used = 0;

    public function process(Request $request, RequestHandler $next): Response
    {
        $id = $request->getHeader(self::HEADER);
        if ($id === null || \preg_match('/^[A-Za-z0-9._:-]{8,128}$/', $id) !== 1) {
            $id = $this->newId();
        }
        // A keep-alive connection runs its requests one after another in one coroutine:
        // the next request replaces the value.
        Context::set(self::class, $id);
        $response = $next->handle($request->withAttribute(self::class, $id));

        return $response->withHeader(self::HEADER, $id);
    }

    /** 16 random hex digits, as bin2hex(random_bytes(8)) gives them. */
    private function newId(): string
    {
        if ($this->used === \strlen($this->random)) {
            [$this->random, $this->used] = [\random_bytes(self::RANDOM_BYTES), 0];
        }
        $this->used += 8;

        return \bin2hex(\substr($this->random, $this->used - 8, 8));
    }

    /** The id of the request the current coroutine serves, or null outside one. */
    public static function current(): ?string
    {
        $id = Context::get(self::class);

        return \is_string($id) ? $id : null;
    }
}
