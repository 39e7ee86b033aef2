<?php

declare(strict_types=1);

namespace Petrel\Console;

use InvalidArgumentException;
use Petrel\Http\Handlers;
use Petrel\Http\RequestHandler;
use Throwable;

/**
 * Loads an APP file: a PHP file that returns the request handler — a Closure(Request):
 * Response, a Petrel\Http\RequestHandler (a Petrel\Web\App is one), or a PSR-15
 * RequestHandlerInterface.
 */
final class AppLoader
{
    /** @throws ConsoleException with one clear line if the file is missing, fails, or returns the wrong thing */
    public static function load(string $path): RequestHandler
    {
        if (!\is_file($path)) {
            throw new ConsoleException("APP file not found: {$path}");
        }
        try {
            $app = (static fn (string $file): mixed => require $file)($path);
        } catch (Throwable $error) {
            throw new ConsoleException(\sprintf(
                'APP %s failed to load: %s: %s in %s:%d',
                $path,
                $error::class,
                $error->getMessage(),
                $error->getFile(),
                $error->getLine(),
            ), 0, $error);
        }

        return self::toHandler($app, $path);
    }

    /** @throws ConsoleException when $app is not a request handler */
    public static function toHandler(mixed $app, string $path = 'APP'): RequestHandler
    {
        try {
            return Handlers::from($app, $path);
        } catch (InvalidArgumentException $error) {
            throw new ConsoleException($error->getMessage(), 0, $error);
        }
    }
}
