<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

/**
 * For tests that need many descriptors open at once (thousands of streams, one numbered
 * past select()'s FD_SETSIZE): raises this process's soft RLIMIT_NOFILE to what is
 * needed, as far as the hard limit allows.
 */
final class OpenFiles
{
    /** Raises the soft limit to at least $need; null once done, else why it cannot be (a skip reason). */
    public static function atLeast(int $need): ?string
    {
        $limit = \posix_getrlimit();
        $hard = $limit['hard openfiles'] ?? 'unlimited';
        if ($hard !== 'unlimited' && (int) $hard < $need) {
            return "needs RLIMIT_NOFILE >= {$need}, the hard limit is {$hard} (ulimit -Hn)";
        }
        $soft = $limit['soft openfiles'] ?? 0;
        if ($soft !== 'unlimited' && (int) $soft < $need
            && !\posix_setrlimit(\POSIX_RLIMIT_NOFILE, $need, $hard === 'unlimited' ? -1 : (int) $hard)) {
            return "cannot raise RLIMIT_NOFILE to {$need}: " . \posix_strerror(\posix_get_last_error());
        }

        return null;
    }

    /**
     * Opens /dev/null 1,030 times, so that the next descriptor opened is numbered past
     * FD_SETSIZE (1,024; needs atLeast(1200)); fclose() what it returns when done.
     *
     * @return list<resource>
     */
    public static function fillPastSelectLimit(): array
    {
        $fillers = [];
        for ($i = 0; $i < 1030; $i++) {
            $file = \fopen('/dev/null', 'r');
            \assert(\is_resource($file));
            $fillers[] = $file;
        }

        return $fillers;
    }
}
