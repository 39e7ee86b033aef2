<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Console;

use Petrel\Console\Application;
use Petrel\Console\ConsoleException;
use Petrel\Console\StartOptions;
use PHPUnit\Framework\TestCase;

final class ApplicationTest extends TestCase
{
    /**
     * The last resort behind StartOptions' check of --listen: an address the socket layer
     * calls malformed (a SocketError, an \Error) is one line too, not a PHP fatal error.
     */
    public function testAnAddressTheSocketLayerRefusesIsOneLine(): void
    {
        $options = new StartOptions(...['listen' => 'garbage', 'app' => \dirname(__DIR__, 2) . '/System/fixtures/app.php', 'pidFile' => \sys_get_temp_dir() . '/petrel-unit-' . \getmypid() . '.pid'] + \get_object_vars(StartOptions::parse(['app.php'], [], [])));
        $this->expectException(ConsoleException::class);
        $this->expectExceptionMessage('cannot listen on garbage: Malformed address "garbage"');
        (new \ReflectionMethod(Application::class, 'start'))->invoke(new Application([]), $options);
    }
}
