<?php

declare(strict_types=1);

/*
 * CPU instructions per operation of the MySQL client, counted by valgrind (callgrind): the
 * same figure on every run, however loaded the machine is.
 *
 *   php -d opcache.enable_cli=1 bench/micro/mysql-instructions.php [--case=NAME]
 *
 * Cases (all by default):
 *   query   `select * from test where id = 1` on one MysqlConnection, against a fake server
 *           in the same process (a coroutine answering every COM_QUERY with the same 1-row
 *           result): client and fake server, one suspension and resumption each per query
 *   request a request's worth through a Database pool, as examples/db.php makes it: a
 *           coroutine, two 1-row queries and a 5-row one, lease and release
 *   text1, binary1        decoding a 1-row result (3 columns), in memory
 *   text10k, binary10k    decoding a 10,000-row result, in memory
 * Each case runs at two loop lengths and the difference is divided by the extra
 * operations, so start-up cancels out. The fake server is what makes the I/O cases
 * countable: against a real one the count changes with whether the reply has arrived
 * before the client reads (then no suspension), which depends on the machine's load.
 * opcache and JIT settings of this process are passed on; the JIT is off under valgrind
 * unless asked for, as in a worker started without PETREL_JIT.
 */

use Petrel\Database\Database;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\MetadataCache;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\Internal\PayloadWriter;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Socket\Socket;

use function Petrel\go;
use function Petrel\run;
use function Petrel\Socket\listen;

require __DIR__ . '/../../vendor/autoload.php';
require __DIR__ . '/../lib/callgrind.php';

const CASES = ['query' => [200, 1200], 'request' => [100, 600], 'text1' => [500, 2500], 'binary1' => [500, 2500],
    'text10k' => [2, 6], 'binary10k' => [2, 6]];

$options = getopt('', ['case:', 'loop:']);
$only = $options['case'] ?? null;
if (\is_string($only) && !isset(CASES[$only])) {
    fwrite(STDERR, "unknown case {$only} (cases: " . implode(', ', array_keys(CASES)) . ")\n");
    exit(2);
}
$cases = \is_string($only) ? [$only => CASES[$only]] : CASES;
if (!isset($options['loop'])) {
    printf("mysql-instructions — PHP %s, opcache %s, JIT %s\n", PHP_VERSION, ini_get('opcache.enable_cli') ? 'on' : 'off', ini_get('opcache.jit') ?: 'off');
    foreach ($cases as $case => [$short, $long]) {
        printf("%-10s %12.0f instructions/op\n", $case, (callgrindInstructions(__FILE__, $case, $long) - callgrindInstructions(__FILE__, $case, $short)) / ($long - $short));
    }
    exit(0);
}
$loop = \is_string($options['loop']) ? (int) $options['loop'] : 0;
$case = array_key_first($cases);
if (str_starts_with($case, 'text') || str_starts_with($case, 'binary')) {
    decodeLoop(str_starts_with($case, 'binary'), str_ends_with($case, '10k') ? 10000 : 1, $loop);
    exit(0);
}
run(static function () use ($case, $loop): void {
    $server = listen('127.0.0.1:0');
    go(static function () use ($server): void {
        while (($client = $server->accept()) !== null) {
            go(static fn () => fakeServer($client));
        }
    });
    $url = "mysql://bench:bench@{$server->getAddress()}/bench";
    if ($case === 'query') {
        $db = MysqlConnection::connect(DatabaseConfig::fromUrl($url));
        $operation = static fn () => $db->query('select * from test where id = 1');
    } else {
        $db = Database::fromUrl($url);
        $operation = static fn () => go(static fn () => [
            $db->query('select * from test where id = 1'),
            $db->query('select * from test where id = 2'),
            $db->query('select * from test limit 5'),
        ])->join();
    }
    for ($i = 0; $i < $loop; ++$i) {
        $operation();
    }
    $db->close();
    $server->close();
});

/** The fake server's session: logs anyone in, answers every COM_QUERY with a 1-row (or, for "limit 5", 5-row) result. */
function fakeServer(Socket $client): void
{
    $capabilities = Capability::LONG_PASSWORD | Capability::PROTOCOL_41 | Capability::SECURE_CONNECTION
        | Capability::PLUGIN_AUTH | Capability::TRANSACTIONS | Capability::CONNECT_WITH_DB
        | Capability::DEPRECATE_EOF | Capability::PLUGIN_AUTH_LENENC_CLIENT_DATA;
    $client->write(PacketFramer::frame("\x0A" . "10.11.99-fake\0" . pack('V', 7) . '12345678' . "\0"
        . pack('v', $capabilities & 0xFFFF) . chr(45) . pack('v', 2) . pack('v', $capabilities >> 16)
        . chr(21) . str_repeat("\0", 10) . "abcdefghijkl\0" . "mysql_native_password\0", 0));
    readPacket($client);
    $client->write(PacketFramer::frame("\x00\x00\x00\x02\x00\x00\x00", 2));
    $one = response(1, false);
    $five = response(5, false);
    while (($command = readPacket($client)) !== null && $command !== "\x01") { // COM_QUIT
        $client->write(str_ends_with($command, 'limit 5') ? $five : $one);
    }
    $client->close();
}

function readPacket(Socket $client): ?string
{
    $header = $client->read(4);
    if ($header === null) {
        return null;
    }
    $header .= strlen($header) < 4 ? $client->readExactly(4 - strlen($header)) : '';
    $length = ord($header[0]) | (ord($header[1]) << 8) | (ord($header[2]) << 16);

    return $length === 0 ? '' : $client->readExactly($length);
}

/** A result of $rows rows of test(id INT, name VARCHAR, email VARCHAR), as the server sends it. */
function response(int $rows, bool $binary): string
{
    $column = static fn (string $name, int $type, int $flags, int $charset, int $length): string => PayloadWriter::lenencString('def')
        . PayloadWriter::lenencString('bench') . PayloadWriter::lenencString('test') . PayloadWriter::lenencString('test')
        . PayloadWriter::lenencString($name) . PayloadWriter::lenencString($name)
        . "\x0C" . pack('vVCvC', $charset, $length, $type, $flags, 0) . "\0\0";
    $payloads = ["\x03", $column('id', 0x03, 0x4203, 63, 11), $column('name', 0xFD, 0, 45, 400), $column('email', 0xFD, 0, 45, 1020)];
    for ($i = 1; $i <= $rows; ++$i) {
        [$name, $email] = ["user name {$i}", "user{$i}@example.com"];
        $payloads[] = $binary
            ? "\x00\x00" . pack('V', $i) . PayloadWriter::lenencString($name) . PayloadWriter::lenencString($email)
            : PayloadWriter::lenencString((string) $i) . PayloadWriter::lenencString($name) . PayloadWriter::lenencString($email);
    }
    $payloads[] = "\xFE\x00\x00\x02\x00\x00\x00";
    $bytes = '';
    foreach ($payloads as $sequence => $payload) {
        $bytes .= PacketFramer::frame($payload, $sequence + 1);
    }

    return $bytes;
}

/** Decodes the same response $loop times, as a connection does (one decoder, a metadata cache). */
function decodeLoop(bool $binary, int $rows, int $loop): void
{
    $bytes = response($rows, $binary);
    $framer = new PacketFramer();
    $decoder = new ResultDecoder(Capability::PROTOCOL_41 | Capability::DEPRECATE_EOF, $binary, new MetadataCache());
    for ($i = 0; $i < $loop; ++$i) {
        $framer->resetSequence();
        $framer->packet("\x03");
        $decoder->reset();
        $framer->feed($bytes);
        $result = [];
        while (!$decoder->isComplete() && $decoder->drain($framer, $result) !== null) {
            // one result set
        }
        if (\count($result) !== $rows) {
            throw new RuntimeException('decoded ' . \count($result) . " rows of {$rows}");
        }
    }
}
