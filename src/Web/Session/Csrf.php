<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Http\Request;

/**
 * The CSRF token of a session: made on demand (32 random bytes, base64url) and kept in the
 * session, so pages without forms create no session. Put it in forms with field() or send it
 * in the X-CSRF-Token header (from JavaScript); {@see CsrfMiddleware} checks it.
 *
 *     $view->addFunction('csrf_field', Csrf::field(...), safeHtml: true);  // {{ csrf_field() }}
 *     $view->addFunction('csrf_token', Csrf::token(...));                  // <meta content="{{ csrf_token() }}">
 *
 * Called without a request (as from a template), both find the session in the coroutine's
 * Context, where SessionMiddleware put it.
 */
final class Csrf
{
    public const FIELD = '_token';
    public const HEADER = 'X-CSRF-Token';
    public const SESSION_KEY = '_csrf_token';

    /** @throws SessionError when no SessionMiddleware runs before this code */
    public static function token(?Request $request = null): string
    {
        $session = Session::from($request);
        $token = $session->get(self::SESSION_KEY);
        if (!\is_string($token) || $token === '') {
            $token = \rtrim(\strtr(\base64_encode(\random_bytes(32)), '+/', '-_'), '=');
            $session->set(self::SESSION_KEY, $token);
        }

        return $token;
    }

    /** A hidden form field carrying the token (HTML). */
    public static function field(?Request $request = null): string
    {
        return '<input type="hidden" name="' . self::FIELD . '" value="'
            . \htmlspecialchars(self::token($request), \ENT_QUOTES | \ENT_SUBSTITUTE, 'UTF-8') . '">';
    }

    /** Makes a new token (the old one stops working), e.g. after login. */
    public static function regenerate(?Request $request = null): string
    {
        Session::from($request)->remove(self::SESSION_KEY);

        return self::token($request);
    }
}
