<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Symfony;

use Symfony\Component\HttpFoundation\Request as SymfonyRequest;
use Symfony\Component\HttpFoundation\Response as SymfonyResponse;
use Symfony\Component\HttpKernel\HttpKernelInterface;
use Symfony\Component\HttpKernel\TerminableInterface;
use Symfony\Contracts\Service\ResetInterface;

/** A kernel that runs one controller and writes down what was called on it, in order. */
final class RecordingKernel implements HttpKernelInterface, TerminableInterface, ResetInterface
{
    /** @var list<string> */
    public array $log = [];

    /** @param \Closure(SymfonyRequest, self): SymfonyResponse $controller */
    public function __construct(private readonly \Closure $controller)
    {
    }

    public function handle(SymfonyRequest $request, int $type = self::MAIN_REQUEST, bool $catch = true): SymfonyResponse
    {
        $this->log[] = 'handle ' . $request->getPathInfo();

        return ($this->controller)($request, $this);
    }

    public function terminate(SymfonyRequest $request, SymfonyResponse $response): void
    {
        $this->log[] = "terminate {$request->getPathInfo()} {$response->getStatusCode()}";
    }

    public function reset(): void
    {
        $this->log[] = 'reset';
    }
}
