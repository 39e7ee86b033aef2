<?php

declare(strict_types=1);

namespace App;

use App\Controller\ApiController;
use App\Controller\FileController;
use App\Controller\PageController;
use Symfony\Bundle\FrameworkBundle\FrameworkBundle;
use Symfony\Bundle\FrameworkBundle\Kernel\MicroKernelTrait;
use Symfony\Bundle\TwigBundle\TwigBundle;
use Symfony\Component\DependencyInjection\Loader\Configurator\ContainerConfigurator;
use Symfony\Component\HttpKernel\Kernel as BaseKernel;
use Symfony\Component\Routing\Loader\Configurator\RoutingConfigurator;

/**
 * The whole configuration in PHP (no config/ files). APP_VAR_DIR moves var/ (cache and
 * logs), e.g. to a temporary directory in tests. Trusted proxies as Symfony documents
 * them: requests from 127.0.0.1 (a local nginx) may say who the client was in
 * X-Forwarded-* headers; TRUSTED_PROXIES overrides the list.
 */
final class Kernel extends BaseKernel
{
    use MicroKernelTrait;

    public function registerBundles(): iterable
    {
        yield new FrameworkBundle();
        yield new TwigBundle();
    }

    public function getProjectDir(): string
    {
        return \dirname(__DIR__);
    }

    public function getCacheDir(): string
    {
        return $this->varDir() . '/cache/' . $this->environment;
    }

    public function getLogDir(): string
    {
        return $this->varDir() . '/log';
    }

    protected function configureContainer(ContainerConfigurator $container): void
    {
        $container->extension('framework', [
            'secret' => (string) ($_SERVER['APP_SECRET'] ?? 'petrel-example-not-a-secret'),
            'http_method_override' => false,
            'handle_all_throwables' => true,
            'php_errors' => ['log' => true],
            'form' => ['enabled' => true],
            'csrf_protection' => false,
            'trusted_proxies' => (string) ($_SERVER['TRUSTED_PROXIES'] ?? '127.0.0.1'),
            'trusted_headers' => ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded-host'],
        ]);
        $container->extension('twig', ['default_path' => '%kernel.project_dir%/templates']);
        $services = $container->services()->defaults()->autowire()->autoconfigure();
        $services->load('App\\', __DIR__ . '/')->exclude([__DIR__ . '/Kernel.php', __DIR__ . '/Controller/']);
        $services->load('App\\Controller\\', __DIR__ . '/Controller/')->tag('controller.service_arguments');
        $services->set(Service\RequestJournal::class)->public(); // public: the tests look at it between requests
    }

    protected function configureRoutes(RoutingConfigurator $routes): void
    {
        $routes->add('home', '/')->controller([PageController::class, 'home'])->methods(['GET']);
        $routes->add('greet', '/greet')->controller([PageController::class, 'greet'])->methods(['GET', 'POST']);
        $routes->add('boom', '/boom')->controller([PageController::class, 'boom']);
        $routes->add('api_hello', '/api/hello')->controller([ApiController::class, 'hello'])->methods(['GET']);
        $routes->add('api_request', '/api/request')->controller([ApiController::class, 'request']);
        $routes->add('api_state', '/api/state')->controller([ApiController::class, 'state']);
        $routes->add('download', '/download')->controller([FileController::class, 'download'])->methods(['GET', 'HEAD']);
        $routes->add('stream', '/stream')->controller([FileController::class, 'stream'])->methods(['GET']);
    }

    private function varDir(): string
    {
        $dir = $_SERVER['APP_VAR_DIR'] ?? \getenv('APP_VAR_DIR');

        return \is_string($dir) && $dir !== '' ? $dir : $this->getProjectDir() . '/var';
    }
}
