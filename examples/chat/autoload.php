<?php

// Loads Composer's autoloader (unless something has) and maps the example's namespace,
// Chat\, to src/. Include it with require_once.
declare(strict_types=1);

if (!class_exists(Petrel\Web\App::class)) {
    require __DIR__ . '/../../vendor/autoload.php';
}

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Chat\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 5)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
