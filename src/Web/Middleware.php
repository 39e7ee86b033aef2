<?php

declare(strict_types=1);

namespace Petrel\Web;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;

/**
 * Wraps request handling: do something before, call $next (or not), do something after.
 * PSR-15 middleware is accepted wherever this is, through an adapter.
 */
interface Middleware
{
    public function process(Request $request, RequestHandler $next): Response;
}
