<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Response;

/**
 * A response with after-send callbacks (Response::withAfterSend()): the same response,
 * plus the callbacks, which its copies keep. A class of its own so that the connection
 * can tell it apart with one instanceof (see Response's class comment).
 *
 * @internal made by Response::withAfterSend() only
 */
final class AfterSendResponse extends Response
{
    /** @var non-empty-list<\Closure(): void> */
    private array $callbacks;

    /**
     * Fields only: Response::withAfterSend() copies the response's own into it, rather
     * than running Response's constructor.
     *
     * @param \Closure(): void $callback
     */
    public function __construct(\Closure $callback)
    {
        $this->callbacks = [$callback];
    }

    /** @param \Closure(): void $callback */
    public function withCallback(\Closure $callback): self
    {
        $copy = clone $this;
        $copy->callbacks[] = $callback;

        return $copy;
    }

    /** @return non-empty-list<\Closure(): void> */
    public function getAfterSend(): array
    {
        return $this->callbacks;
    }
}
