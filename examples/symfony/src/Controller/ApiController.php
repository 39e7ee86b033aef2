<?php

declare(strict_types=1);

namespace App\Controller;

use App\Service\Greeter;
use App\Service\RequestJournal;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Request;

final class ApiController
{
    public function __construct(private readonly Greeter $greeter, private readonly RequestJournal $journal)
    {
    }

    public function hello(Request $request): JsonResponse
    {
        return new JsonResponse(['message' => $this->greeter->greet((string) $request->query->get('name', ''))]);
    }

    /** What Symfony made of the request: path, client IP (trusted proxies), scheme, host… */
    public function request(Request $request): JsonResponse
    {
        return new JsonResponse([
            'method' => $request->getMethod(),
            'path' => $request->getPathInfo(),
            'query' => $request->query->all(),
            'form' => $request->request->all(),
            'cookies' => $request->cookies->all(),
            'clientIp' => $request->getClientIp(),
            'scheme' => $request->getScheme(),
            'host' => $request->getHost(),
            'port' => $request->getPort(),
            'secure' => $request->isSecure(),
            'uri' => $request->getUri(),
        ]);
    }

    /** Records this request in a kernel.reset service: without a reset, entries pile up. */
    public function state(Request $request): JsonResponse
    {
        $this->journal->record((string) $request->query->get('id', '?'));

        return new JsonResponse(['entries' => $this->journal->entries()]);
    }
}
