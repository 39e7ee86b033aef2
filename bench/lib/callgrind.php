<?php

declare(strict_types=1);

/*
 * For the bench/micro scripts that count instructions: run $script again under valgrind's
 * callgrind with --case=CASE --loop=N and return the instructions it executed. The
 * opcache, JIT and GC settings of this process are passed on, so a count run with
 * `php -d opcache.enable_cli=1 …` counts what a worker runs. The scripts call it at two
 * loop lengths and divide the difference by the extra operations: start-up cancels out.
 * The same code counts the same every time, but a garbage-collection run that falls inside
 * one window and not the other moves the figure by ~1,000 per op, and an unrelated edit
 * (a comment) can move where it falls: to compare two versions, count both with
 * `-d zend.enable_gc=0` as well.
 */

function callgrindInstructions(string $script, string $case, int $loop): int
{
    $flags = '';
    foreach (['opcache.enable_cli', 'opcache.jit', 'opcache.jit_buffer_size', 'zend.enable_gc'] as $name) {
        $value = ini_get($name);
        $flags .= $value !== false && $value !== '' ? ' -d ' . escapeshellarg("{$name}={$value}") : '';
    }
    $output = (string) shell_exec(sprintf(
        'valgrind --tool=callgrind --callgrind-out-file=/dev/null --smc-check=all %s%s %s --case=%s --loop=%d 2>&1',
        escapeshellarg(PHP_BINARY),
        $flags,
        escapeshellarg($script),
        escapeshellarg($case),
        $loop,
    ));
    if (!preg_match('/Collected : (\d+)/', $output, $match)) {
        fwrite(STDERR, "valgrind failed (is it installed?):\n{$output}");
        exit(1);
    }

    return (int) $match[1];
}
