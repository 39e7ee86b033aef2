<?php

declare(strict_types=1);

/*
 * Cost of finding a descriptor number for a PHP stream (PHP exposes none), per new stream,
 * for the ways the epoll driver could do it (see docs/event-loop.md):
 *
 *   php bench/micro/fd-resolve.php [--streams=2000] [--open=0,1000,10000]
 *
 *   scm     the driver's way: socket_sendmsg() the stream to ourselves with SCM_RIGHTS,
 *           FFI recvmsg() a duplicate, close it later (Internal\DescriptorChannel)
 *   scan    fstat() the stream's inode, then readlink() /proc/self/fd/N for every open
 *           descriptor until "socket:[inode]" matches: O(open descriptors)
 * (Guessing the descriptor — the kernel gives the lowest free one — costs one readlink
 * when right, but needs the scan to be sure, and is wrong as soon as descriptors close in
 * any order: not measured.)
 * scan resolves 50 streams per round. Each case runs with --open extra descriptors held open (the rlimit is raised as far as
 * the hard limit allows), because scan grows with them. Prints µs per stream (wall clock,
 * median of 3 rounds).
 */

use Petrel\Loop\Internal\DescriptorChannel;
use Petrel\Loop\Internal\Libc;

require \dirname(__DIR__, 2) . '/vendor/autoload.php';

$options = \getopt('', ['streams:', 'open:']);
$count = \is_string($options['streams'] ?? null) ? (int) $options['streams'] : 2000;
$open = \is_string($options['open'] ?? null) ? $options['open'] : '0,1000,10000';
$opens = \array_map('intval', \explode(',', $open));
$reason = Libc::unavailableReason();
if ($reason !== null) {
    \fwrite(\STDERR, "FFI unavailable: {$reason}\n");
    exit(1);
}
$limit = \posix_getrlimit() ?: [];
$hard = ($limit['hard openfiles'] ?? 0) === 'unlimited' ? 1 << 20 : (int) ($limit['hard openfiles'] ?? 1024);
\posix_setrlimit(\POSIX_RLIMIT_NOFILE, $hard, $hard);
$channel = new DescriptorChannel(Libc::ffi());

/** @return list<resource> */
function sockets(int $n): array
{
    $list = [];
    for ($i = 0; $i < $n; $i++) {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        \assert($pair !== false);
        [$list[]] = $pair;
        \fclose($pair[1]);
    }

    return $list;
}

function scan(mixed $stream): int
{
    $target = 'socket:[' . (\fstat($stream) ?: ['ino' => '?'])['ino'] . ']';
    foreach (\scandir('/proc/self/fd') ?: [] as $entry) {
        if ($entry[0] !== '.' && @\readlink("/proc/self/fd/{$entry}") === $target) {
            return (int) $entry;
        }
    }

    return -1;
}

$cases = [
    'scm' => static function (array $streams) use ($channel): void {
        foreach ($streams as $stream) {
            $channel->close($channel->duplicate($stream));
        }
    },
    'scan' => static function (array $streams): void {
        foreach ($streams as $stream) {
            if (scan($stream) < 0) {
                throw new \RuntimeException('scan did not find the stream');
            }
        }
    },
];
\printf("fd-resolve — PHP %s, %d streams per round, µs per stream (median of 3)\n", \PHP_VERSION, $count);
\printf("%-8s %s\n", 'case', \implode('', \array_map(static fn (int $o): string => \sprintf('%14s', "{$o} open"), $opens)));
foreach ($cases as $name => $case) {
    $row = [];
    foreach ($opens as $open) {
        if ($open + $count * 3 + 100 > $hard) {
            $row[] = \sprintf('%14s', 'rlimit');
            continue;
        }
        $held = sockets($open);
        $streams = sockets($name === 'scm' ? $count : 50); // scan: its cost is in --open
        $rounds = [];
        for ($r = 0; $r < 3; $r++) {
            $start = \hrtime(true);
            $case($streams);
            $rounds[] = (\hrtime(true) - $start) / 1e3 / \count($streams);
        }
        \sort($rounds);
        $row[] = \sprintf('%14.2f', $rounds[1]);
        unset($held, $streams);
    }
    \printf("%-8s %s\n", $name, \implode('', $row));
}
