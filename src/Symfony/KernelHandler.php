<?php

declare(strict_types=1);

namespace Petrel\Symfony;

use Petrel\Http\ModePreference;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Http\ServerConfig;
use Petrel\Symfony\Internal\RequestFactory;
use Petrel\Symfony\Internal\ResponseFactory;
use Petrel\Symfony\Internal\StrayOutput;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;
use Symfony\Component\HttpFoundation\Response as SymfonyResponse;
use Symfony\Component\HttpKernel\HttpKernelInterface;
use Symfony\Component\HttpKernel\Kernel;
use Symfony\Component\HttpKernel\KernelInterface;
use Symfony\Component\HttpKernel\TerminableInterface;

/**
 * Runs a Symfony HttpKernel (typically the app's `new Kernel($env, $debug)`) on Petrel,
 * unchanged. An APP file may return the kernel itself (Petrel\Http\Handlers wraps it in
 * this), or this handler to set options:
 *
 *     return new Petrel\Symfony\KernelHandler(new Kernel('prod', false), server: ['HTTPS' => 'on']);
 *
 * The kernel is booted once, when the handler is made (in each worker: the APP file is
 * loaded after the fork). Each request is converted to an HttpFoundation Request directly
 * (Internal\RequestFactory says which server parameters it gets), handled with
 * catch = true (so an exception becomes the app's own error response, as in php-fpm),
 * converted back (Internal\ResponseFactory: streamed and file responses included). Once
 * the response is written (Http\Response::withAfterSend(): the client does not wait for
 * them, as under php-fpm's fastcgi_finish_request()), the kernel is terminated
 * (kernel.terminate listeners: the profiler, mail spools, work deferred past the
 * response) and its resettable services are reset (`services_resetter`, the services
 * tagged kernel.reset) — by calling Kernel::boot() again, the path Symfony's own
 * long-running runtimes take — so the next request starts clean: in sync mode the worker
 * takes none before. A StreamedResponse's callback runs before that, inside the request.
 * A wrapper that rebuilds the response without its after-send callbacks (with*() copies
 * keep them) only delays them: in sync mode they run before the next request instead.
 *
 * Concurrency: the container and its RequestStack belong to the process, so by default
 * the kernel prefers sync mode (one request at a time per worker; bin/petrel picks it
 * unless --mode says otherwise). An app may pass concurrent: true to prefer coroutine mode
 * only if, for every request, no service keeps per-request state across a suspension
 * (a coroutine database/Redis/HTTP call, Petrel\sleep): RequestStack, the security token,
 * the session, the form's CSRF token, buffered loggers and any service tagged kernel.reset
 * are shared by all the requests in flight in a worker, and the reset after one request
 * resets them under the others. Stateless controllers over coroutine clients qualify;
 * anything touching the session or the current user does not.
 */
final class KernelHandler implements RequestHandler, ModePreference
{
    private readonly RequestFactory $requests;

    private readonly ResponseFactory $responses;

    /** @var list<string>|null framework.trusted_proxies when it names REMOTE_ADDR, see trustRemoteAddress() */
    private readonly ?array $remoteAddressProxies;

    /**
     * Sync mode: the terminate-and-reset of the last response until it has run (its
     * after-send callback); the next request runs it first if it never did.
     *
     * @var (\Closure(): void)|null
     */
    private ?\Closure $unfinished = null;

    /**
     * @param bool $concurrent prefer coroutine mode (see the rules above)
     * @param array<string, string> $server server parameters added to every request's
     *        (they win over Petrel's), e.g. ['HTTPS' => 'on', 'SERVER_PORT' => '443']
     */
    public function __construct(
        private readonly HttpKernelInterface $kernel,
        private readonly bool $concurrent = false,
        array $server = [],
    ) {
        $this->requests = new RequestFactory($server);
        $this->responses = new ResponseFactory();
        if ($kernel instanceof KernelInterface) {
            $kernel->boot();
        }
        $this->remoteAddressProxies = self::remoteAddressProxies($kernel);
    }

    /**
     * What the app prints outside its Response goes to the worker's stdout, past PHP's
     * output layer (Internal\StrayOutput: in a CLI process it would break the sessions of
     * every later request). Not for a kernel declared concurrent: output buffers belong to
     * the process, and requests that interleave would end each other's.
     */
    public function handle(Request $request): Response
    {
        if ($this->concurrent) {
            return $this->handleKernel($request);
        }
        if ($this->unfinished !== null) {
            ($this->unfinished)();
        }

        return StrayOutput::forward(fn (): Response => $this->handleKernel($request));
    }

    private function handleKernel(Request $request): Response
    {
        $symfonyRequest = $this->requests->create($request);
        if ($this->remoteAddressProxies !== null) {
            $this->trustRemoteAddress((string) $symfonyRequest->server->get('REMOTE_ADDR', ''));
        }
        try {
            $symfonyResponse = $this->kernel->handle($symfonyRequest);
            $response = $this->responses->create($symfonyResponse, $symfonyRequest);
        } catch (\Throwable $error) {
            $this->reset();

            throw $error;
        }
        $done = false;
        $finish = function () use ($symfonyRequest, $symfonyResponse, &$done): void {
            if ($done) {
                return;
            }
            $done = true;
            if ($this->concurrent) {
                $this->terminate($symfonyRequest, $symfonyResponse);

                return;
            }
            $this->unfinished = null; // one at a time in sync mode: it is this one
            StrayOutput::forward(fn () => $this->terminate($symfonyRequest, $symfonyResponse));
        };
        if (!$this->concurrent) {
            $this->unfinished = $finish;
        }

        return $response->withAfterSend($finish);
    }

    private function terminate(SymfonyRequest $request, SymfonyResponse $response): void
    {
        try {
            if ($this->kernel instanceof TerminableInterface) {
                $this->kernel->terminate($request, $response);
            }
        } finally {
            $this->reset();
        }
    }

    public function getKernel(): HttpKernelInterface
    {
        return $this->kernel;
    }

    public function preferredMode(): string
    {
        return $this->concurrent ? ServerConfig::MODE_COROUTINE : ServerConfig::MODE_SYNC;
    }

    public function modeReason(): string
    {
        return $this->concurrent
            ? 'the Symfony kernel was declared concurrent'
            : 'a Symfony kernel keeps per-request state in its container: one request at a time per worker';
    }

    /**
     * Symfony replaces "REMOTE_ADDR" in the trusted proxies by $_SERVER['REMOTE_ADDR'] once,
     * when FrameworkBundle boots — right for php-fpm, where that is the peer; a resident
     * worker has no peer at boot, so Symfony drops it. Re-applied here for each request
     * with the request's peer, so `trusted_proxies: 'REMOTE_ADDR'` works as documented.
     *
     * @return list<string>|null
     */
    private static function remoteAddressProxies(HttpKernelInterface $kernel): ?array
    {
        if (!$kernel instanceof KernelInterface) {
            return null;
        }
        $container = $kernel->getContainer();
        $proxies = $container->hasParameter('kernel.trusted_proxies') ? $container->getParameter('kernel.trusted_proxies') : null;
        if (!\is_string($proxies) || !\str_contains($proxies, 'REMOTE_ADDR')) {
            return null;
        }

        return \array_values(\array_filter(\array_map('trim', \explode(',', $proxies)), static fn (string $proxy): bool => $proxy !== ''));
    }

    private function trustRemoteAddress(string $peer): void
    {
        $proxies = [];
        foreach ($this->remoteAddressProxies ?? [] as $proxy) {
            if ($proxy !== 'REMOTE_ADDR') {
                $proxies[] = $proxy;
            } elseif ($peer !== '') {
                $proxies[] = $peer;
            }
        }
        SymfonyRequest::setTrustedProxies($proxies, \max(0, \min(63, SymfonyRequest::getTrustedHeaderSet())));
    }

    private function reset(): void
    {
        $kernel = $this->kernel;
        if ($kernel instanceof Kernel) {
            $kernel->boot(); // a booted Kernel resets its services here after a request
        } elseif ($kernel instanceof KernelInterface) {
            $container = $kernel->getContainer();
            if ($container->has('services_resetter')) {
                $resetter = $container->get('services_resetter');
                if (\is_object($resetter) && \method_exists($resetter, 'reset')) {
                    $resetter->reset();
                }
            }
        } elseif (\interface_exists(\Symfony\Contracts\Service\ResetInterface::class) && $kernel instanceof \Symfony\Contracts\Service\ResetInterface) {
            $kernel->reset();
        }
    }
}
