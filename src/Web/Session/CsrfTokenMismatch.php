<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Web\Error\HttpError;

/** 403: a state-changing request without the session's CSRF token (thrown by CsrfMiddleware). */
final class CsrfTokenMismatch extends HttpError
{
    public function __construct()
    {
        parent::__construct(403, 'The form has expired or its CSRF token is invalid. Reload the page and try again.');
    }
}
