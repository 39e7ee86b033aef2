# Shared helpers for the bench/* scripts (bash). Source it; it sets up a temp dir and
# cleans up every process it started on exit.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH_TMP=$(mktemp -d /tmp/petrel-bench.XXXXXX)
BENCH_PIDS=()

bench_cleanup() {
    for pid in "${BENCH_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.5
    for pid in "${BENCH_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT

bench_need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "bench: '$tool' is not installed (Debian: apt-get install $tool)" >&2; exit 2; }
    done
}

bench_free_port() {
    php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1);'
}

# bench_wait_http URL [seconds]: waits until URL answers (any status).
bench_wait_http() {
    local deadline=$((SECONDS + ${2:-15}))
    until curl -s -o /dev/null "$1"; do
        [ $SECONDS -lt $deadline ] || { echo "bench: $1 did not come up" >&2; return 1; }
        sleep 0.1
    done
}

# bench_petrel APP PORT [start options...]: starts bin/petrel in the background.
bench_petrel() {
    local app=$1 port=$2; shift 2
    php "$BENCH_ROOT/bin/petrel" start "$app" --listen="127.0.0.1:$port" --pid-file="$BENCH_TMP/petrel-$port.pid" "$@" >"$BENCH_TMP/petrel-$port.log" 2>&1 &
    BENCH_PIDS+=($!)
    bench_wait_http "http://127.0.0.1:$port/"
}

# bench_nginx_return200 PORT WORKERS: nginx answering every request with `return 200`.
bench_nginx_return200() {
    local port=$1 workers=$2 dir="$BENCH_TMP/nginx-$1"
    mkdir -p "$dir"
    cat >"$dir/nginx.conf" <<CONF
worker_processes $workers;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$port;
        location / { default_type text/plain; return 200 "Hello, World!"; }
    }
}
CONF
    nginx -c "$dir/nginx.conf" -p "$dir" -g 'daemon off;' >"$dir/stdout.log" 2>&1 &
    BENCH_PIDS+=($!)
    bench_wait_http "http://127.0.0.1:$port/"
}

# bench_wrk URL CONNECTIONS SECONDS: prints "req/s p50_ms p99_ms errors" (one line).
bench_wrk() {
    local out threads=2
    [ "$2" -lt 2 ] && threads=1
    out=$(wrk -t"$threads" -c"$2" -d"${3}s" --latency "$1" 2>&1)
    echo "$out" >>"$BENCH_TMP/wrk.log"
    php -r '
        $o = stream_get_contents(STDIN);
        $ms = function (string $v): float { preg_match("/([\d.]+)(us|ms|s)/", $v, $m); return (float) $m[1] * ["us" => 0.001, "ms" => 1, "s" => 1000][$m[2]]; };
        preg_match("/Requests\/sec:\s+([\d.]+)/", $o, $rps);
        preg_match("/\s50%\s+(\S+)/", $o, $p50);
        preg_match("/\s99%\s+(\S+)/", $o, $p99);
        $errors = 0;
        if (preg_match("/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/", $o, $e)) { $errors += $e[1] + $e[2] + $e[3] + $e[4]; }
        if (preg_match("/Non-2xx or 3xx responses: (\d+)/", $o, $n)) { $errors += $n[1]; }
        printf("%.0f %.2f %.2f %d\n", $rps[1] ?? 0, isset($p50[1]) ? $ms($p50[1]) : 0, isset($p99[1]) ? $ms($p99[1]) : 0, $errors);
    ' <<<"$out"
}
