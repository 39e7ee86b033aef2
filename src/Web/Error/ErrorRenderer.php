<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Status;
use Throwable;

/**
 * Turns an exception into the error response. An HttpError keeps its status, headers and
 * public message; anything else is a 500 "Internal Server Error" whose details (class,
 * message, file:line, trace, previous exceptions) appear only when $debug is on.
 *
 * JSON when the client prefers it (see prefersJson()), shaped
 * {"error":{"status":404,"message":"Not Found"}} plus "errors" (field => messages) for a
 * 422 and "debug" in debug mode; otherwise a small self-contained HTML page in which every
 * interpolated string is HTML-escaped. Stateless and never throws: invalid header values on
 * an HttpError are skipped rather than failing the error response.
 */
final class ErrorRenderer
{
    public function render(Throwable $error, Request $request, bool $debug): Response
    {
        $status = $error instanceof HttpError ? $error->getStatus() : 500;
        $message = $error instanceof HttpError ? $error->getPublicMessage() : 'Internal Server Error';
        $errors = $error instanceof UnprocessableEntity ? $error->getErrors() : [];
        $details = $debug ? self::debugDetails($error) : null;

        $response = self::prefersJson($request)
            ? self::json($status, $message, $errors, $details)
            : self::html($status, $message, $errors, $details);

        if ($error instanceof HttpError) {
            foreach ($error->getHeaders() as $name => $value) {
                if (\strtolower($name) === 'content-type') {
                    continue;
                }
                try {
                    $response = $response->withHeader($name, $value);
                } catch (\ValueError) {
                    // An unsafe header must not turn the error response into another error.
                }
            }
        }

        return $response;
    }

    /**
     * Whether the client prefers JSON: "X-Requested-With: XMLHttpRequest", or an Accept
     * header whose best JSON type (application/json, any +json) has a higher q than its best
     * HTML type (text/html, application/xhtml+xml) — on a tie, the one listed first. Wildcards
     * count for neither, so browsers and clients without Accept get HTML.
     */
    public static function prefersJson(Request $request): bool
    {
        if (\strcasecmp($request->getHeader('x-requested-with') ?? '', 'XMLHttpRequest') === 0) {
            return true;
        }
        $accept = $request->getHeader('accept');
        if ($accept === null) {
            return false;
        }
        $json = $html = [0.0, \PHP_INT_MAX]; // [q, position]
        foreach (\explode(',', $accept) as $position => $range) {
            $parts = \explode(';', $range);
            $type = \strtolower(\trim($parts[0]));
            $q = 1.0;
            foreach (\array_slice($parts, 1) as $parameter) {
                if (\preg_match('/^\s*q\s*=\s*([0-9.]+)\s*$/i', $parameter, $m) === 1) {
                    $q = \min(1.0, (float) $m[1]);
                }
            }
            if ($type === 'application/json' || \str_ends_with($type, '+json')) {
                $json = $q > $json[0] ? [$q, $position] : $json;
            } elseif ($type === 'text/html' || $type === 'application/xhtml+xml') {
                $html = $q > $html[0] ? [$q, $position] : $html;
            }
        }

        return $json[0] > 0.0 && ($json[0] > $html[0] || ($json[0] === $html[0] && $json[1] < $html[1]));
    }

    /**
     * @param array<string, list<string>> $errors
     * @param array<string, mixed>|null $details
     */
    private static function json(int $status, string $message, array $errors, ?array $details): Response
    {
        $body = ['status' => $status, 'message' => $message];
        if ($errors !== []) {
            $body['errors'] = (object) $errors; // an object even for fields "0", "1", …, not a JSON list
        }
        if ($details !== null) {
            $body['debug'] = $details;
        }
        $flags = \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE | \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_PARTIAL_OUTPUT_ON_ERROR;
        $json = \json_encode(['error' => $body], $flags);

        $json = $json === false ? '{"error":{"status":' . $status . '}}' : $json;

        return new Response($status, ['Content-Type' => 'application/json'], $json);
    }

    /**
     * @param array<string, list<string>> $errors
     * @param array<string, mixed>|null $details
     */
    private static function html(int $status, string $message, array $errors, ?array $details): Response
    {
        $title = \trim($status . ' ' . Status::reasonPhrase($status));
        $body = '<h1>' . self::e($title) . "</h1>\n";
        if ($message !== Status::reasonPhrase($status)) {
            $body .= '<p>' . self::e($message) . "</p>\n";
        }
        if ($errors !== []) {
            $body .= "<ul class=\"errors\">\n";
            foreach ($errors as $field => $messages) {
                foreach ($messages as $text) {
                    $body .= '<li data-field="' . self::e((string) $field) . '">' . self::e($text) . "</li>\n";
                }
            }
            $body .= "</ul>\n";
        }
        foreach ($details === null ? [] : [$details, ...$details['previous']] as $i => $detail) {
            $body .= '<section class="debug"><h2>' . ($i > 0 ? 'Caused by ' : '') . self::e($detail['class']) . '</h2>'
                . '<p>' . self::e($detail['message']) . '</p>'
                . '<p><code>' . self::e($detail['file'] . ':' . $detail['line']) . '</code></p>'
                . '<pre>' . self::e(\implode("\n", $detail['trace'])) . "</pre></section>\n";
        }

        $page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            . "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            . '<title>' . self::e($title) . "</title>\n"
            . '<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem;color:#222;background:#fafafa}'
            . 'main{max-width:60rem;margin:auto}h1{font-size:1.6rem;margin:0 0 1rem}'
            . '.errors{color:#a00}.debug{border-top:1px solid #ddd;margin-top:1.5rem}'
            . "pre{background:#f0f0f0;padding:1rem;overflow:auto;font-size:.8rem}</style>\n"
            . "</head>\n<body>\n<main>\n" . $body . "</main>\n</body>\n</html>\n";

        return new Response($status, ['Content-Type' => 'text/html; charset=utf-8'], $page);
    }

    /**
     * @return array{class: string, message: string, file: string, line: int, trace: list<string>,
     *     previous: list<array{class: string, message: string, file: string, line: int, trace: list<string>}>}
     */
    private static function debugDetails(Throwable $error): array
    {
        $describe = static fn (Throwable $e): array => [
            'class' => $e::class,
            'message' => $e->getMessage(),
            'file' => $e->getFile(),
            'line' => $e->getLine(),
            'trace' => \explode("\n", $e->getTraceAsString()),
        ];
        $previous = [];
        for ($e = $error->getPrevious(), $depth = 0; $e !== null && $depth < 10; $e = $e->getPrevious(), $depth++) {
            $previous[] = $describe($e);
        }

        return $describe($error) + ['previous' => $previous];
    }

    private static function e(string $text): string
    {
        return \htmlspecialchars($text, \ENT_QUOTES | \ENT_SUBSTITUTE | \ENT_HTML5, 'UTF-8');
    }
}
