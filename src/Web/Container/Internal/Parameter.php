<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

/**
 * What autowiring needs to know about one parameter, taken from reflection once.
 *
 * @internal
 */
final readonly class Parameter
{
    /**
     * @param string|null $class the class or interface when the type is a single one, else null
     * @param string $type the declared type as written, for messages ('' when none)
     */
    public function __construct(
        public string $name,
        public int $position,
        public ?string $class,
        public string $type,
        public bool $allowsNull,
        public bool $hasDefault,
        public bool $variadic,
    ) {
    }

    public static function fromReflection(\ReflectionParameter $parameter): self
    {
        $type = $parameter->getType();
        $class = null;
        if ($type instanceof \ReflectionNamedType && !$type->isBuiltin()) {
            $class = $type->getName();
            if ($class === 'self' || $class === 'static') {
                $class = $parameter->getDeclaringClass()?->getName();
            }
        }

        return new self(
            $parameter->getName(),
            $parameter->getPosition(),
            $class,
            $type === null ? '' : (string) $type,
            $type !== null && $parameter->allowsNull(),
            $parameter->isDefaultValueAvailable(),
            $parameter->isVariadic(),
        );
    }
}
