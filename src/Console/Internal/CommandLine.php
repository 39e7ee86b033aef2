<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\ConsoleException;
use Petrel\Process\PidFile;

/**
 * bin/petrel's argv: the command, its positional arguments and its --flags; and the pid
 * file `stop`, `reload` and `status` act on. A mistake is refused, never guessed around: a
 * typo in a flag must not make `stop` stop the default server instead.
 *
 * @internal
 */
final class CommandLine
{
    /** The only options of stop, reload and status (--help is everyone's). */
    private const SIGNAL_FLAGS = ['pid-file', 'listen'];

    /**
     * @param list<string> $argv
     * @return array{?string, list<string>, array<string, string|true>}
     * @throws ConsoleException for a flag given twice (which one would count?)
     */
    public static function parse(array $argv): array
    {
        $command = null;
        $arguments = [];
        $flags = [];
        foreach (\array_slice($argv, 1) as $arg) {
            if (\preg_match('/^--([a-z][a-z0-9-]*)(?:=(.*))?$/s', $arg, $m) || $arg === '-d') {
                $flag = $m[1] ?? 'daemon';
                if (\array_key_exists($flag, $flags)) {
                    throw new ConsoleException("Option --{$flag} is given twice" . ($flag === 'daemon' ? ' (-d is --daemon)' : ''));
                }
                $flags[$flag] = $m[2] ?? true;
            } elseif ($command === null) {
                $command = $arg;
            } else {
                $arguments[] = $arg;
            }
        }
        if (isset($flags['help']) && $command !== 'bench') {
            $command = 'help';
        }

        return [$command, $arguments, $flags];
    }

    /**
     * The pid file of `stop`, `reload` or `status`: --pid-file, else the one `start` keys by
     * --listen (or PETREL_LISTEN, or the default address). Anything else on the command line
     * is refused, so nothing is signalled by mistake.
     *
     * @param list<string> $arguments
     * @param array<string, string|true> $flags
     * @param array<string, string> $env
     * @throws ConsoleException
     */
    public static function pidFile(string $command, array $arguments, array $flags, array $env): PidFile
    {
        if ($arguments !== []) {
            throw new ConsoleException("{$command} takes no arguments, got \"{$arguments[0]}\" (see bin/petrel --help)");
        }
        foreach ($flags as $flag => $given) {
            if (!\in_array($flag, self::SIGNAL_FLAGS, true)) {
                throw new ConsoleException("Unknown option --{$flag} for {$command} (see bin/petrel --help)");
            }
            if ($given === true || $given === '') {
                throw new ConsoleException("Option --{$flag} needs a value (--{$flag}=...)");
            }
        }
        if (isset($flags['listen'])) {
            OptionValue::address('listen', $flags['listen'], unix: true); // as start took it
        }
        if (\is_string($flags['pid-file'] ?? null)) {
            return new PidFile($flags['pid-file']);
        }
        $listen = $flags['listen'] ?? ($env['PETREL_LISTEN'] ?? '');

        return PidFile::forAddress($listen === '' ? '127.0.0.1:8080' : $listen);
    }
}
