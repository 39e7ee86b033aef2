<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

/**
 * One page of results from Query::paginate(). JSON: {data, total, page, per_page, pages}.
 *
 * @template T
 * @implements \IteratorAggregate<int, T>
 */
final class Page implements \IteratorAggregate, \JsonSerializable
{
    /** The number of pages (at least 1, so "page 1 of 1" holds for an empty result). */
    public readonly int $pages;

    /** @param list<T> $items */
    public function __construct(
        public readonly array $items,
        public readonly int $total,
        public readonly int $page,
        public readonly int $perPage,
    ) {
        $this->pages = \max(1, (int) \ceil($total / \max(1, $perPage)));
    }

    public function hasMore(): bool
    {
        return $this->page < $this->pages;
    }

    /** @return \ArrayIterator<int, T> */
    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->items);
    }

    /** @return array{data: list<T>, total: int, page: int, per_page: int, pages: int} */
    public function jsonSerialize(): array
    {
        return ['data' => $this->items, 'total' => $this->total, 'page' => $this->page, 'per_page' => $this->perPage, 'pages' => $this->pages];
    }
}
