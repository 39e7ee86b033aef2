<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Response;
use Petrel\Web\Routing\HandlerError;

/**
 * What a route handler may return: a Response (as is), a string (200 text/html), an array
 * or JsonSerializable (200 application/json), or null / nothing (204 No Content).
 *
 * @internal
 */
final class ResponseConverter
{
    /** @throws HandlerError for any other value */
    public static function convert(mixed $value, string $handler): Response
    {
        return match (true) {
            $value instanceof Response => $value,
            \is_string($value) => Response::html($value),
            $value === null => Response::empty(204),
            \is_array($value), $value instanceof \JsonSerializable => Response::json($value),
            default => throw new HandlerError(\sprintf(
                '%s returned %s: return a %s, a string (HTML), an array or JsonSerializable (JSON), or null (204)',
                $handler,
                \get_debug_type($value),
                Response::class,
            )),
        };
    }
}
