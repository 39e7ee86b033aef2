<?php

declare(strict_types=1);

namespace Petrel\Database;

/** A prepared statement, bound to the connection that prepared it. */
interface Statement
{
    /**
     * @param array<int|string, mixed> $params
     * @return list<array<string, mixed>>
     */
    public function query(array $params = []): array;

    /** @param array<int|string, mixed> $params */
    public function execute(array $params = []): Result;

    /** Frees the statement on the server; further use is an error. */
    public function close(): void;
}
