<?php

declare(strict_types=1);

namespace Petrel\Http;

/** Turns a request into a response. The server calls it once per request, in a coroutine. */
interface RequestHandler
{
    public function handle(Request $request): Response;
}
