<?php

// bin/petrel start examples/hello.php — the hello-world benchmark workload.
declare(strict_types=1);

use Petrel\Http\Request;
use Petrel\Http\Response;

return static fn (Request $request): Response => Response::text('Hello, World!');
