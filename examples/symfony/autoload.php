<?php

// Loads Composer's autoloader (when nothing has yet: the classic front controller) and maps
// the example's own namespace, App\, to src/. Include it with require_once.
declare(strict_types=1);

if (!class_exists(Symfony\Component\HttpKernel\Kernel::class)) {
    $autoload = __DIR__ . '/../../vendor/autoload.php';
    require $autoload;
    if (!class_exists(Symfony\Component\HttpKernel\Kernel::class)) {
        throw new RuntimeException('examples/symfony needs Petrel\'s dev dependencies: run `composer install` (without --no-dev)');
    }
}

spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'App\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 4)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
