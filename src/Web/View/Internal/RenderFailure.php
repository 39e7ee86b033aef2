<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Compiler;
use Twig\Template;

/**
 * The error handling of Twig's Template::yield() and yieldBlock(), for the shortcuts that
 * call a block or another template's display directly (DirectBlockNode, DirectIncludeNode,
 * DirectParentNode): compiled around the call by compileCall(), and at run time rethrow()
 * reports the error against the called template as Twig reports it
 * (a Twig error gets $template's source and a guessed line if it has none; anything else
 * is wrapped in a RuntimeError "An exception has been thrown during the rendering of a
 * template"). Twig's Template::handleException() itself is called, private as it is, so
 * the messages stay Twig's; only on an error, so what it costs does not matter.
 *
 * @internal called by compiled templates
 */
final class RenderFailure
{
    /**
     * Compiles `yield from <template>-><call>` as Template::yield() and yieldBlock() run
     * theirs, errors reported against the template:
     *
     *     try {
     *         yield from $_v0[0]->{$_v0[1]}($context, $blocks);
     *     } catch (\Throwable $_v1) {
     *         RenderFailure::rethrow($_v0[0], $_v1);
     *     }
     *
     * Without their call to the template's ensureSecurityChecked() first: the shortcuts are
     * compiled only where the Environment has no SandboxExtension (StructureShortcutsVisitor),
     * and there no template defines that method, so every call was to Twig\Template's empty
     * one (~200 instructions each, five a render of the blog's home page).
     *
     * @param string $template a PHP expression for the called Twig\Template
     * @param \Closure(Compiler): mixed $call compiles the method call after `<template>->`
     */
    public static function compileCall(Compiler $compiler, string $template, \Closure $call): void
    {
        self::compileTry($compiler, $template, static function (Compiler $compiler) use ($template, $call): void {
            $compiler->write("yield from {$template}->");
            $call($compiler);
            $compiler->raw(";\n");
        });
    }

    /**
     * compileCall() with statements of its own inside the `try` (DirectBlockNode's choice
     * of the block method's name), each a `yield from` of a call on $template.
     *
     * @param \Closure(Compiler): mixed $body compiles the statements, indented
     */
    public static function compileTry(Compiler $compiler, string $template, \Closure $body): void
    {
        $error = '$' . $compiler->getVarName();
        $compiler
            ->write("try {\n")
            ->indent();
        $body($compiler);
        $compiler
            ->outdent()
            ->write("} catch (\\Throwable {$error}) {\n")
            ->indent()
            ->write('\\' . self::class . "::rethrow({$template}, {$error});\n")
            ->outdent()
            ->write("}\n");
    }

    public static function rethrow(Template $template, \Throwable $error): never
    {
        /** @var \Closure(\Throwable): never $handle */
        $handle = \Closure::bind(fn (\Throwable $error) => $this->handleException($error), $template, Template::class);
        $handle($error);
    }
}
