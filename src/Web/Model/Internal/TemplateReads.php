<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use Petrel\Web\Model\Model;

/**
 * For Model::directAttribute(), per model class: whether `{{ model.name }}` may be answered
 * from the attributes, as __isset() and __get() would. False when the class reads them its
 * own way (its own __isset() or __get(), or ArrayAccess, which Twig asks first); else the
 * names of its public instance properties, which Twig reads instead of an attribute of the
 * same name. Worked out once per class by reflection.
 *
 * @internal
 */
final class TemplateReads
{
    /** @var array<class-string, array<string, true>|false> */
    private static array $byClass = [];

    /**
     * @param class-string<Model> $class
     * @return array<string, true>|false
     */
    public static function of(string $class): array|false
    {
        // TemplateReads::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        return TemplateReads::$byClass[$class] ??= self::reflect(new \ReflectionClass($class));
    }

    /**
     * @param \ReflectionClass<Model> $class
     * @return array<string, true>|false
     */
    private static function reflect(\ReflectionClass $class): array|false
    {
        if ($class->implementsInterface(\ArrayAccess::class)
            || $class->getMethod('__isset')->getDeclaringClass()->getName() !== Model::class
            || $class->getMethod('__get')->getDeclaringClass()->getName() !== Model::class) {
            return false;
        }
        $public = [];
        foreach ($class->getProperties(\ReflectionProperty::IS_PUBLIC) as $property) {
            if (!$property->isStatic()) {
                $public[$property->getName()] = true;
            }
        }

        return $public;
    }
}
