<?php

declare(strict_types=1);

namespace Petrel\Web\Error;

use Throwable;

/** 405: the path exists but not for this method; the response lists the allowed ones in Allow. */
class MethodNotAllowed extends HttpError
{
    /** @var list<string> */
    private readonly array $allowedMethods;

    /** @param list<string> $allowedMethods e.g. ['GET', 'HEAD'] */
    public function __construct(array $allowedMethods, string $publicMessage = '', ?Throwable $previous = null)
    {
        $this->allowedMethods = \array_values(\array_unique(\array_map('strtoupper', $allowedMethods)));
        parent::__construct(405, $publicMessage, ['Allow' => \implode(', ', $this->allowedMethods)], $previous);
    }

    /** @return list<string> upper case, without duplicates */
    public function getAllowedMethods(): array
    {
        return $this->allowedMethods;
    }
}
