<?php

declare(strict_types=1);

namespace Chat;

/**
 * Carries a chat message (JSON) to every member of the chat: those of this worker (the
 * Hub) and, for a relay that spans processes, those of every other worker and instance.
 */
interface Relay
{
    /** Sends $json to everyone, this worker's members included (through $hub). */
    public function publish(string $json, Hub $hub): void;

    /** Whether members of other workers and instances hear this worker's messages. */
    public function isShared(): bool;

    /** Gets ready to deliver to $hub (a subscription, for a shared relay); called as a member joins. */
    public function listen(Hub $hub): void;
}
