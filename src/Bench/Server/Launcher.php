<?php

declare(strict_types=1);

namespace Petrel\Bench\Server;

use Petrel\Bench\BenchException;
use Petrel\Bench\Internal\ChildProcess;
use Petrel\Bench\SkipException;
use Petrel\Bench\Workspace;

/**
 * Starts the servers the scenarios compare, each on its own loopback port with its own
 * config under the workspace, and waits until it serves the expected page:
 * Petrel (`bin/petrel start`), nginx (`return 200`, reverse proxy, FastCGI), php-fpm and
 * the bare PHP loop of bench/apps.
 */
final class Launcher
{
    /**
     * php-fpm runs its scripts the way a tuned production php-fpm would, with the JIT off
     * like Petrel's default (bin/petrel explains why).
     */
    public const FPM_INI = [
        'opcache.enable' => '1',
        'opcache.validate_timestamps' => '0',
        'opcache.max_accelerated_files' => '20000',
        'opcache.jit' => 'disable',
        'display_errors' => '0',
        'log_errors' => '1',
    ];

    public function __construct(
        private readonly Workspace $workspace,
        private readonly string $root,
    ) {
    }

    /**
     * bin/petrel start APP in the foreground (it re-execs itself with opcache on, as users
     * run it).
     *
     * @param array<string, string|null> $env changes to this process's environment (null removes)
     */
    public function petrel(string $name, string $app, int $workers, string $mode, string $expect, array $env = []): Server
    {
        return $this->listening($name, $expect, fn (int $port): array => [
            \PHP_BINARY, "{$this->root}/bin/petrel", 'start', $app,
            "--listen=127.0.0.1:{$port}", "--workers={$workers}", "--mode={$mode}",
            '--pid-file=' . $this->workspace->path("run/petrel-{$port}.pid"),
        ], self::environment($env));
    }

    /** nginx answering every request itself: `return 200 "Hello, World!"` — the machine's ceiling. */
    public function nginxReturn200(string $name, int $workers): Server
    {
        return $this->nginx($name, $workers, 'Hello, World!', static fn (int $port): string => <<<CONF
                server {
                    listen 127.0.0.1:{$port};
                    location / { default_type text/plain; return 200 "Hello, World!"; }
                }
            CONF);
    }

    /**
     * bench/apps/bare-hello.php: the hello answered by a bare stream_select() loop in PHP, no
     * parser, no objects — the floor of any PHP server here, the interpreter's and its
     * stream functions' own cost, with opcache on and the JIT off as Petrel runs.
     */
    public function barePhp(string $name, int $workers): Server
    {
        return $this->listening($name, 'Hello, World!', fn (int $port): array => [
            \PHP_BINARY, '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=disable',
            "{$this->root}/bench/apps/bare-hello.php", (string) $port, (string) $workers,
        ]);
    }

    /** nginx in front of $upstream (a base URL), with keep-alive connections to it. */
    public function nginxProxy(string $name, int $workers, Server $upstream, string $expect): Server
    {
        $backend = (string) \parse_url($upstream->url, \PHP_URL_HOST) . ':' . (string) \parse_url($upstream->url, \PHP_URL_PORT);
        $proxy = $this->nginx($name, $workers, $expect, static fn (int $port): string => <<<CONF
                upstream backend { server {$backend}; keepalive 128; }
                server {
                    listen 127.0.0.1:{$port};
                    location / {
                        proxy_pass http://backend;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host \$host;
                        proxy_set_header X-Forwarded-For \$remote_addr;
                    }
                }
            CONF);

        return new Server($name, $proxy->url, [...$upstream->processes(), ...$proxy->processes()]);
    }

    /**
     * The classic PHP stack: nginx passing every request to the front controller $script
     * through php-fpm (pm = static, $children processes, opcache on, the JIT off: FPM_INI).
     *
     * @param array<string, string|null> $env changes to the environment the scripts see (clear_env = no)
     */
    public function nginxFpm(string $name, int $workers, int $children, string $script, string $expect, array $env = []): Server
    {
        $fpm = $this->phpFpm($name, $children, $env);
        $socket = $this->workspace->path("{$name}/php-fpm.sock");
        $dir = \dirname($script);
        $base = \basename($script);
        try {
            $nginx = $this->nginx("{$name}-nginx", $workers, $expect, static fn (int $port): string => <<<CONF
                    upstream php { server unix:{$socket}; }
                    server {
                        listen 127.0.0.1:{$port};
                        root {$dir};
                        location / {
                            fastcgi_param GATEWAY_INTERFACE CGI/1.1;
                            fastcgi_param SERVER_SOFTWARE nginx;
                            fastcgi_param REQUEST_METHOD \$request_method;
                            fastcgi_param QUERY_STRING \$query_string;
                            fastcgi_param CONTENT_TYPE \$content_type;
                            fastcgi_param CONTENT_LENGTH \$content_length;
                            fastcgi_param REQUEST_URI \$request_uri;
                            fastcgi_param DOCUMENT_URI \$document_uri;
                            fastcgi_param DOCUMENT_ROOT \$document_root;
                            fastcgi_param SERVER_PROTOCOL \$server_protocol;
                            fastcgi_param REQUEST_SCHEME \$scheme;
                            fastcgi_param REMOTE_ADDR \$remote_addr;
                            fastcgi_param REMOTE_PORT \$remote_port;
                            fastcgi_param SERVER_ADDR \$server_addr;
                            fastcgi_param SERVER_PORT \$server_port;
                            fastcgi_param SERVER_NAME \$server_name;
                            fastcgi_param HTTP_HOST \$host;
                            fastcgi_param SCRIPT_FILENAME {$script};
                            fastcgi_param SCRIPT_NAME /{$base};
                            fastcgi_pass php;
                        }
                    }
                CONF);
        } catch (BenchException $error) {
            $fpm->stop();
            // A 500 from nginx is PHP's error: say it, it is in php-fpm's log, not nginx's.
            throw new BenchException($error->getMessage() . "\nphp-fpm's log ends:\n" . $fpm->logTail(), 0, $error);
        } catch (\Throwable $error) {
            $fpm->stop();
            throw $error;
        }

        return new Server($name, $nginx->url, [$fpm, ...$nginx->processes()]);
    }

    /** @param array<string, string|null> $env */
    private function phpFpm(string $name, int $children, array $env): ChildProcess
    {
        $binary = Workspace::which('php-fpm' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION) ?? Workspace::which('php-fpm')
            ?? throw SkipException::missing('php-fpm', 'php' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION . '-fpm');
        $dir = \dirname($this->workspace->path("{$name}/php-fpm.conf"));
        $user = \posix_getuid() === 0 ? "user = root\ngroup = root\n" : '';
        \file_put_contents("{$dir}/php-fpm.conf", <<<CONF
            [global]
            pid = {$dir}/php-fpm.pid
            error_log = {$dir}/php-fpm.log
            daemonize = no
            [bench]
            {$user}listen = {$dir}/php-fpm.sock
            listen.mode = 0666
            pm = static
            pm.max_children = {$children}
            clear_env = no
            catch_workers_output = yes

            CONF);
        $argv = [$binary, '-R', '-F', '-y', "{$dir}/php-fpm.conf"];
        foreach (self::FPM_INI as $key => $value) {
            \array_push($argv, '-d', "{$key}={$value}");
        }
        // Its output and its error log in one file: what it says at start-up and the
        // children it lost under load (Server::crashes()) are read from the same place.
        $process = $this->workspace->spawn($name, $argv, self::environment($env), log: "{$dir}/php-fpm.log");
        $deadline = \microtime(true) + 15;
        while (!\file_exists("{$dir}/php-fpm.sock")) {
            if (!$process->isRunning() || \microtime(true) > $deadline) {
                $process->stop();
                throw new BenchException("php-fpm did not start:\n" . $process->logTail());
            }
            \usleep(50_000);
        }

        return $process;
    }

    /** @param \Closure(int): string $servers the http{} block's server and upstream sections */
    private function nginx(string $name, int $workers, string $expect, \Closure $servers): Server
    {
        $binary = Workspace::which('nginx') ?? throw SkipException::missing('nginx', 'nginx');
        $port = $this->workspace->freePort();
        $dir = \dirname($this->workspace->path("{$name}/nginx.conf"));
        $http = $servers($port);
        \file_put_contents("{$dir}/nginx.conf", <<<CONF
            worker_processes {$workers};
            pid {$dir}/nginx.pid;
            error_log {$dir}/error.log warn;
            events { worker_connections 8192; }
            http {
                access_log off;
                client_body_temp_path {$dir}/body;
                proxy_temp_path {$dir}/proxy;
                fastcgi_temp_path {$dir}/fastcgi;
                uwsgi_temp_path {$dir}/uwsgi;
                scgi_temp_path {$dir}/scgi;
            {$http}
            }

            CONF);
        $process = $this->workspace->spawn($name, [$binary, '-e', "{$dir}/error.log", '-c', "{$dir}/nginx.conf", '-p', $dir, '-g', 'daemon off;']);
        $url = "http://127.0.0.1:{$port}";
        $this->waitOrStop($url . '/', $expect, $process);

        return new Server($name, $url, [$process]);
    }

    /**
     * A server that is one process started in the project root, told its free port on the
     * command line, and serving $expect at `/` once up.
     *
     * @param \Closure(int): list<string> $command the command line for a port
     * @param array<string, string>|null $env its environment (null: this process's)
     */
    private function listening(string $name, string $expect, \Closure $command, ?array $env = null): Server
    {
        $port = $this->workspace->freePort();
        $process = $this->workspace->spawn($name, $command($port), $env, $this->root);
        $url = "http://127.0.0.1:{$port}";
        $this->waitOrStop($url . '/', $expect, $process);

        return new Server($name, $url, [$process]);
    }

    private function waitOrStop(string $url, string $expect, ChildProcess $process): void
    {
        try {
            $this->workspace->waitUntilServing($url, $expect, $process);
        } catch (\Throwable $error) {
            $process->stop();
            throw $error;
        }
    }

    /**
     * This process's environment with $overrides applied (null removes a variable).
     *
     * @param array<string, string|null> $overrides
     * @return array<string, string>
     */
    private static function environment(array $overrides): array
    {
        $env = \getenv();
        foreach ($overrides as $key => $value) {
            if ($value === null) {
                unset($env[$key]);
            } else {
                $env[$key] = $value;
            }
        }

        return $env;
    }
}
