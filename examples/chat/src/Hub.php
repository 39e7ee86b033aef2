<?php

declare(strict_types=1);

namespace Chat;

/**
 * The members connected to this worker. deliver() hands a message to every member's
 * queue and returns at once: it never waits for a client.
 */
final class Hub
{
    /** @var array<int, Member> by spl_object_id */
    private array $members = [];

    public function join(Member $member): void
    {
        $this->members[\spl_object_id($member)] = $member;
    }

    public function leave(Member $member): void
    {
        unset($this->members[\spl_object_id($member)]);
        $member->leave();
    }

    public function deliver(string $json): void
    {
        foreach ($this->members as $id => $member) {
            if (!$member->offer($json)) {
                unset($this->members[$id]);
            }
        }
    }

    public function count(): int
    {
        return \count($this->members);
    }
}
