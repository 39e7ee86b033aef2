<?php

// Loads Composer's autoloader (when nothing has yet: the classic front controller) and
// maps the example's own namespace, Blog\, to src/. Include it with require_once.
declare(strict_types=1);

if (!class_exists(Petrel\Web\App::class)) {
    require __DIR__ . '/../../vendor/autoload.php';
}

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Blog\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 5)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
