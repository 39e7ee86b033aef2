<?php

declare(strict_types=1);

namespace Petrel\Web\View;

use Petrel\Http\Response;
use Petrel\Web\View\Internal\ClassCachingEnvironment;
use Petrel\Web\View\Internal\CompilationShortcuts;
use Petrel\Web\View\Internal\DirectFunctionExpression;
use Petrel\Web\View\Internal\KeyCachingFilesystemLoader;
use Petrel\Web\View\Internal\ReloadingFilesystemLoader;
use Petrel\Web\View\Internal\ShortcutDateExtension;
use Petrel\Web\View\Internal\ShortcutEscaperExtension;
use Petrel\Web\View\Internal\StringRenderable;
use Petrel\Web\View\Internal\ViewFunctions;
use Twig\Environment;
use Twig\Template;
use Twig\TwigFunction;

/**
 * Twig templates for a worker: build one View at boot, render from every request.
 *
 *     $view = new View(__DIR__ . '/templates', debug: getenv('APP_DEBUG') === '1');
 *     $view->addFunction('csrf_field', Csrf::field(...), safeHtml: true);   // at boot
 *     return $view->response('home.html.twig', ['user' => $user]);           // per request
 *
 * Compiled once per worker, kept in memory. A template is compiled to a PHP class the first
 * time it is rendered; the Environment (and PHP's class table) keep that class for the
 * life of the process, so later renders — from any request the worker serves — neither
 * read nor compile the template again. Outside debug mode the template a name stands for
 * (its cache key, its compiled class: extends and includes too) is looked up once, too:
 * add loader paths at boot. With no $cacheDir (the default, right for the resident modes)
 * nothing is written to disk. With a $cacheDir the compiled PHP also goes there, and a
 * fresh process loads it instead of compiling: use one (plus opcache) in classic mode
 * (php-fpm, `php -S`), where a process lives for one request. A process compares each
 * template's modification time with its compiled file's (and the extensions' class files')
 * before loading that (Twig's auto_reload: a stat() of both a template, ~15-35 µs a process
 * for the extensions), so a changed template is compiled again by the next process, rather
 * than the old one served until the directory is cleared.
 *
 * Debug mode ($debug = true): Twig's debug mode and strict_variables are on, and a template
 * whose file changed is recompiled on its next render (its cache key includes a hash of
 * the file, read on every render: development only). Outside debug mode a changed template
 * is picked up when the workers restart (`petrel reload`).
 *
 * Attribute access (`{{ user.name }}`) is compiled with a shortcut for the usual cases, an
 * array key or a public or magic property (Internal\ShortcutGetAttrExpression): the same
 * values and errors as Twig's, for fewer instructions. Likewise each run of template text
 * and `{{ ... }}` is compiled as one `yield` of their concatenation, not one each
 * (Internal\ConcatenatingOutputVisitor), and blocks, includes and a constant `extends` call
 * the other template's code directly (Internal\StructureShortcutsVisitor): the same output
 * and errors. Each compiled class also gets a string-returning form of its display and
 * blocks, which render() and response() go through: no generator per block, include or
 * layout (Internal\StringMethods).
 *
 * Output is HTML-escaped by default (`{{ value }}`); `{{ value|raw }}` opts out (string
 * literals written in the template itself are trusted and not escaped, as in Twig). Layouts,
 * blocks and includes are Twig's (`{% extends %}`, `{% block %}`, `{% include %}`).
 *
 * Concurrency. Requests render concurrently in coroutines of one worker, and a render may
 * suspend (a function or a lazy value doing I/O). Templates are therefore compiled with
 * Twig's `use_yield` option: output is returned (by the string forms) or collected from
 * generators, never written to PHP's process-wide output buffers, so one request's output
 * cannot end up in another's.
 * Globals are shared by every request of the worker: put only worker-wide values there
 * (app name, asset version) and pass per-request values (user, request, flash messages)
 * in the render data.
 *
 * Runtime failures are Twig's: LoaderError (no such template), SyntaxError, RuntimeError.
 */
final class View
{
    private readonly ClassCachingEnvironment $twig;
    private readonly ViewFunctions $functions;
    /** @var array<string, Template> loaded templates by name (outside debug mode, where they never change) */
    private array $templates = [];

    /**
     * @param string|list<string> $templateDirs directories searched in order
     * @param string|null $cacheDir where compiled templates are written too (classic mode); null: memory only
     * @param array<string, mixed> $globals worker-wide values every template sees
     */
    public function __construct(
        string|array $templateDirs,
        private readonly bool $debug = false,
        ?string $cacheDir = null,
        array $globals = [],
    ) {
        $dirs = (array) $templateDirs;
        if ($dirs === []) {
            throw new ViewError('A View needs at least one template directory');
        }
        foreach ($dirs as $dir) {
            if (!\is_dir($dir)) {
                throw new ViewError(\sprintf('Template directory "%s" does not exist', $dir));
            }
        }
        $loader = $debug ? new ReloadingFilesystemLoader($dirs) : new KeyCachingFilesystemLoader($dirs);
        $this->twig = new ClassCachingEnvironment($loader, [
            'debug' => $debug,
            // With a cache dir, whether a compiled file is older than its template (see above).
            'auto_reload' => $debug || $cacheDir !== null,
            'strict_variables' => $debug,
            'cache' => $cacheDir ?? false,
            'autoescape' => 'html',
            'use_yield' => true,
        ]);
        $this->twig->addExtension(new ShortcutEscaperExtension($this->twig));
        $this->twig->addExtension(new ShortcutDateExtension($this->twig));
        $this->twig->addExtension(new CompilationShortcuts());
        $this->twig->addExtension($this->functions = new ViewFunctions());
        foreach ($globals as $name => $value) {
            $this->twig->addGlobal($name, $value);
        }
    }

    /**
     * Renders $template with $data (plus the globals).
     *
     * @param array<string, mixed> $data per-request values
     * @throws \Twig\Error\Error when the template is missing, invalid, or fails while rendering
     */
    public function render(string $template, array $data = []): string
    {
        return $this->output($template, $data);
    }

    /**
     * The rendered template as a `text/html; charset=utf-8` response.
     *
     * @param array<string, mixed> $data per-request values
     * @throws \Twig\Error\Error
     */
    public function response(string $template, array $data = [], int $status = 200): Response
    {
        return Response::html($this->output($template, $data), $status);
    }

    /**
     * Adds a worker-wide value every template sees. New names only before the first render
     * (an existing global may be changed later, but it is shared by all requests).
     */
    public function addGlobal(string $name, mixed $value): void
    {
        try {
            $this->twig->addGlobal($name, $value);
        } catch (\LogicException $e) {
            throw new ViewError("Add global \"{$name}\" at boot, before the first render: " . $e->getMessage(), 0, $e);
        }
    }

    /**
     * Makes $function callable from templates as `name(...)`; add functions at boot, before
     * the first render (once Twig has compiled a template it refuses new ones: ViewError). Its
     * result is escaped like any value unless $safeHtml says it returns HTML meant to be
     * output as is (e.g. `csrf_field()`); then escaping its input is its own job.
     *
     * $pure says its result depends on its arguments only, for as long as the worker runs
     * (`$app->url(...)`: routes are fixed at boot): a call with constant arguments
     * (`url('home')`) then runs once, and later renders print the result it returned. Not
     * for a function that reads the request, the session or the clock (`csrf_field()`).
     */
    public function addFunction(string $name, callable $function, bool $safeHtml = false, bool $pure = false): void
    {
        $options = ['node_class' => DirectFunctionExpression::class];
        if ($safeHtml) {
            $options['is_safe'] = ['html'];
        }
        try {
            $this->twig->addFunction(new TwigFunction($name, $function, $options));
        } catch (\LogicException $e) {
            throw new ViewError("Add function \"{$name}\" at boot, before the first render: " . $e->getMessage(), 0, $e);
        }
        $this->functions->callables[$name] = $function(...);
        if ($pure) {
            $this->functions->pure[$name] = true;
        }
    }

    public function isDebug(): bool
    {
        return $this->debug;
    }

    /**
     * The loaded template. Outside debug mode a name always gives the same template, so it is
     * looked up once; in debug mode Twig is asked every time (the file may have changed).
     * The compiled template itself, not Twig's TemplateWrapper: its stream() would add a
     * generator around the template's own yield(), ~1,200 instructions a render for nothing.
     */
    private function template(string $name): Template
    {
        if ($this->debug) {
            return $this->twig->load($name)->unwrap($this->twig);
        }

        return $this->templates[$name] ??= $this->twig->load($name)->unwrap($this->twig);
    }

    /**
     * What the template $name renders with $data. Through its string methods
     * (Internal\StringMethods), which every template compiled here has; Twig's yield() is
     * there for any other. A template loaded before is found here, without a call to
     * template(); the globals are the Environment's copy (ClassCachingEnvironment).
     *
     * @param array<string, mixed> $data
     */
    private function output(string $name, array $data): string
    {
        $template = $this->templates[$name] ?? $this->template($name);
        if ($template instanceof StringRenderable) {
            return $template->petrelRender($data, $this->twig->loadedGlobals ?? $this->twig->getGlobals());
        }

        return \implode('', \iterator_to_array($template->yield($data), false));
    }

    /** The Twig environment, for what this class does not cover (extensions, filters, loaders). */
    public function environment(): Environment
    {
        return $this->twig;
    }
}
