<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;

/**
 * Stops a statement the client gave up on. Closing our socket does not stop the server:
 * it notices the dead client only when it next writes, so a long query (or a SLEEP, or a
 * lock wait) would run on. Like Connector/J's Statement.cancel(), we send
 * `KILL QUERY <thread id>` from a fresh connection, in a coroutine of its own (the one that
 * gave up is past its deadline), best effort, within a few seconds.
 *
 * @internal
 */
final class QueryKiller
{
    private const TIME_LIMIT = 5.0;

    public static function kill(DatabaseConfig $config, int $threadId): Coroutine
    {
        $scheduler = Scheduler::get();

        return $scheduler->spawn(static function () use ($scheduler, $config, $threadId): void {
            try {
                $scheduler->timeout(self::TIME_LIMIT, static function () use ($config, $threadId): void {
                    $options = ['kill_on_cancel' => '0', 'statement_cache' => '0'] + $config->options;
                    $options['connect_timeout'] = '2';
                    $killer = MysqlConnection::connect(new DatabaseConfig(
                        $config->driver,
                        $config->host,
                        $config->port,
                        $config->user,
                        $config->password,
                        null,
                        $config->socket,
                        $options,
                    ));
                    try {
                        $killer->execute("KILL QUERY {$threadId}");
                    } finally {
                        $killer->close();
                    }
                });
            } catch (\Throwable) {
                // Best effort: the thread may be gone already (unknown thread id), or the
                // server unreachable, in which case it will find the socket closed anyway.
            }
        });
    }
}
