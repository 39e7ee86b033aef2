<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Environment;
use Twig\Extension\ExtensionInterface;
use Twig\Loader\LoaderInterface;
use Twig\Node\Node;
use Twig\Template;

/**
 * Twig's Environment, remembering the compiled class of each template name. Twig works it
 * out again whenever a template extends or includes another, on every render: a hash of
 * the template's cache key and of the options, ~2,900 instructions (blog `GET /`: twice,
 * for its layout and the navigation it includes).
 *
 * Outside debug mode a name stands for the same template for the life of the worker (the
 * production loader remembers its key, View the loaded template: loader paths are added at
 * boot), so for the same class, as long as what Twig hashes does not change: the methods
 * overridden below, which change it, forget every name. In debug mode the loader's key
 * holds a hash of the file, and Twig is asked every time.
 *
 * It also keeps Twig's globals once they are fixed, for View ($loadedGlobals).
 *
 * @internal made by View
 */
final class ClassCachingEnvironment extends Environment
{
    /** @var array<string, string> template name (and "\0" index) => class */
    private array $classes = [];

    /**
     * getGlobals(), kept once a template has been loaded, for View to read without the
     * two calls each render (~490 instructions). Loading a template initialises Twig's
     * runtime, and from then on its globals change only through addGlobal() and
     * resetGlobals(), which forget this copy; null until the next getGlobals() then.
     *
     * @var array<string, mixed>|null
     * @internal read by View, written here only
     */
    public ?array $loadedGlobals = null;

    /** Whether a template has been loaded: Twig's runtime is initialised for good. */
    private bool $loaded = false;

    public function getTemplateClass(string $name, ?int $index = null): string
    {
        if ($this->isDebug()) {
            return self::classWithStringMethods(parent::getTemplateClass($name, $index));
        }

        return $this->classes[$index === null ? $name : "{$name}\0{$index}"] ??= self::classWithStringMethods(parent::getTemplateClass($name, $index));
    }

    /**
     * The compiled template with the string forms of its display and blocks that View
     * renders through (StringMethods).
     */
    public function compile(Node $node): string
    {
        return StringMethods::addTo(parent::compile($node));
    }

    /**
     * Twig's class name for a template, marked as compiled with string methods (their
     * current form, "s3": petrelRender() is given the globals; `|date` on an attribute asks
     * ShortcutDateExtension::formatStored() first): a class compiled without them or with an
     * older form (a cache directory written by an earlier version) is never loaded in its
     * place.
     */
    private static function classWithStringMethods(string $class): string
    {
        return \substr_replace($class, '__TwigTemplate_s3_', 0, \strlen('__TwigTemplate_'));
    }

    public function loadTemplate(string $cls, string $name, ?int $index = null): Template
    {
        $template = parent::loadTemplate($cls, $name, $index);
        $this->loaded = true;

        return $template;
    }

    public function getGlobals(): array
    {
        if ($this->loadedGlobals !== null) {
            return $this->loadedGlobals;
        }
        $globals = parent::getGlobals();
        if ($this->loaded) {
            $this->loadedGlobals = $globals;
        }

        return $globals;
    }

    public function addGlobal(string $name, mixed $value): void
    {
        parent::addGlobal($name, $value);
        $this->loadedGlobals = null;
    }

    public function resetGlobals(): void
    {
        parent::resetGlobals();
        $this->loadedGlobals = null;
    }

    public function enableDebug(): void
    {
        parent::enableDebug();
        $this->classes = [];
    }

    public function disableDebug(): void
    {
        parent::disableDebug();
        $this->classes = [];
    }

    public function enableStrictVariables(): void
    {
        parent::enableStrictVariables();
        $this->classes = [];
    }

    public function disableStrictVariables(): void
    {
        parent::disableStrictVariables();
        $this->classes = [];
    }

    public function setLoader(LoaderInterface $loader): void
    {
        parent::setLoader($loader);
        $this->classes = [];
    }

    public function removeCache(string $name): void
    {
        parent::removeCache($name);
        $this->classes = [];
    }

    public function addExtension(ExtensionInterface $extension): void
    {
        parent::addExtension($extension);
        $this->classes = [];
    }

    /** @param ExtensionInterface[] $extensions */
    public function setExtensions(array $extensions): void
    {
        parent::setExtensions($extensions);
        $this->classes = [];
    }
}
