<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

/**
 * A binary min-heap of timer watchers ordered by due time, then by id (creation order).
 * Supports removal of any member in O(log n): each watcher remembers its heap index, so a
 * request timeout that is cancelled a million times leaves no garbage behind.
 *
 * @internal
 */
final class TimerHeap
{
    /** @var array<int, Watcher> */
    private array $heap = [];
    /**
     * When the earliest timer is due (INF: none). Public so that the loop reads it in each
     * tick without a call; only this class writes it.
     */
    public float $nextDue = \INF;

    public function count(): int
    {
        return \count($this->heap);
    }

    public function peek(): ?Watcher
    {
        return $this->heap[0] ?? null;
    }

    public function insert(Watcher $watcher): void
    {
        $index = \count($this->heap);
        $this->heap[] = $watcher;
        $watcher->heapIndex = $index;
        $this->siftUp($index);
        $this->nextDue = $this->heap[0]->due;
    }

    public function remove(Watcher $watcher): void
    {
        $index = $watcher->heapIndex;
        if ($index < 0 || ($this->heap[$index] ?? null) !== $watcher) {
            return;
        }
        $watcher->heapIndex = -1;
        $last = \array_pop($this->heap);
        if ($last !== $watcher && $last !== null) {
            $this->heap[$index] = $last;
            $last->heapIndex = $index;
            $this->siftDown($index);
            $this->siftUp($last->heapIndex);
        }
        $this->nextDue = isset($this->heap[0]) ? $this->heap[0]->due : \INF;
    }

    /** Removes and returns the earliest timer if it is due at $now. */
    public function extractDue(float $now): ?Watcher
    {
        $top = $this->heap[0] ?? null;
        if ($top === null || $top->due > $now) {
            return null;
        }
        $this->remove($top);

        return $top;
    }

    private function before(Watcher $a, Watcher $b): bool
    {
        return $a->due < $b->due || ($a->due === $b->due && $a->id < $b->id);
    }

    private function siftUp(int $index): void
    {
        $watcher = $this->heap[$index];
        while ($index > 0) {
            $parentIndex = ($index - 1) >> 1;
            $parent = $this->heap[$parentIndex];
            if (!$this->before($watcher, $parent)) {
                break;
            }
            $this->heap[$index] = $parent;
            $parent->heapIndex = $index;
            $index = $parentIndex;
        }
        $this->heap[$index] = $watcher;
        $watcher->heapIndex = $index;
    }

    private function siftDown(int $index): void
    {
        $count = \count($this->heap);
        $watcher = $this->heap[$index];
        while (($child = 2 * $index + 1) < $count) {
            $right = $child + 1;
            if ($right < $count && $this->before($this->heap[$right], $this->heap[$child])) {
                $child = $right;
            }
            if (!$this->before($this->heap[$child], $watcher)) {
                break;
            }
            $this->heap[$index] = $this->heap[$child];
            $this->heap[$index]->heapIndex = $index;
            $index = $child;
        }
        $this->heap[$index] = $watcher;
        $watcher->heapIndex = $index;
    }
}
