<?php

declare(strict_types=1);

namespace Chat;

/** In-process broadcast: only the members connected to this worker hear each other. */
final class LocalRelay implements Relay
{
    public function publish(string $json, Hub $hub): void
    {
        $hub->deliver($json);
    }

    public function isShared(): bool
    {
        return false;
    }

    public function listen(Hub $hub): void
    {
    }
}
