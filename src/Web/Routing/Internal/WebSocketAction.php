<?php

declare(strict_types=1);

namespace Petrel\Web\Routing\Internal;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Web\Internal\ArgumentPlan;
use Petrel\Web\Routing\HandlerError;
use Petrel\Web\Routing\RouteResult;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketOptions;
use Petrel\WebSocket\WebSocketServer;
use Psr\Container\ContainerInterface;

/**
 * The route action App::websocket() registers: answers the handshake with
 * WebSocketServer::upgrade() and, once upgraded, calls the WebSocket handler with its
 * parameters injected like a route handler's (Internal\ArgumentPlan: Request, RouteResult,
 * route placeholders with their casts, the App, the container, services) plus the
 * WebSocket for every parameter typed WebSocket. The arguments are resolved before the
 * upgrade, so a placeholder that does not cast is still a 404 and a missing service a
 * 500, not a WebSocket that closes at once. The handler's return value is ignored.
 *
 * @internal
 */
final class WebSocketAction
{
    private ?ArgumentPlan $plan = null;

    /** @var list<int> positions of the parameters typed WebSocket */
    private readonly array $socketPositions;

    private readonly string $description;

    /** @param array<class-string, object> $fixed objects injected by exact type */
    public function __construct(
        private readonly Closure $handler,
        private readonly ?WebSocketOptions $options,
        private readonly ContainerInterface $container,
        private readonly array $fixed,
    ) {
        $function = new \ReflectionFunction($handler);
        $this->description = \sprintf('the WebSocket handler at %s:%d', $function->getFileName(), $function->getStartLine());
        $positions = [];
        foreach ($function->getParameters() as $i => $parameter) {
            $type = $parameter->getType();
            if ($type instanceof \ReflectionNamedType && $type->getName() === WebSocket::class) {
                $positions[] = $i;
            }
        }
        if ($positions === []) {
            throw new HandlerError("{$this->description} has no parameter typed " . WebSocket::class);
        }
        $this->socketPositions = $positions;
    }

    public function __invoke(Request $request, ?RouteResult $result): Response
    {
        if ($result?->route === null) {
            throw new HandlerError('A WebSocket route action runs only through the App\'s router');
        }
        // The WebSocket does not exist yet: the plan injects a placeholder that is swapped
        // for it once the connection is upgraded.
        $this->plan ??= new ArgumentPlan(
            new \ReflectionFunction($this->handler),
            $this->description,
            $result->route,
            $this->container,
            [...$this->fixed, WebSocket::class => new \stdClass()],
        );
        $arguments = $this->plan->arguments($request, $result, $result->params);
        $handler = $this->handler;
        $positions = $this->socketPositions;

        return WebSocketServer::upgrade($request, static function (WebSocket $ws) use ($handler, $arguments, $positions): void {
            foreach ($positions as $i) {
                $arguments[$i] = $ws;
            }
            $handler(...$arguments);
        }, $this->options);
    }
}
