# Shared helpers for the bench/* scripts (bash). Source it; it sets up a temp dir and
# cleans up every process it started on exit.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH_TMP=$(mktemp -d /tmp/petrel-bench.XXXXXX)
BENCH_PIDS=()

# bench_track PID: a process to stop on exit, also when started in a subshell (a function
# called as $(...)), whose additions to BENCH_PIDS the script would not see.
bench_track() {
    BENCH_PIDS+=("$1")
    echo "$1" >>"$BENCH_TMP/pids"
}

# bench_untracked PID TRACKED: the processes PID started, their children and so on, but for
# the TRACKED ones (pids, space-separated) and theirs: a server stops its own workers.
bench_untracked() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null || true); do
        [ "$child" != "$BASHPID" ] || continue   # the subshell listing them
        case " $2 " in *" $child "*) continue ;; esac
        echo "$child"
        bench_untracked "$child" "$2"
    done
}

# The servers, and what else the script started that may still run: a probe loop in the
# background, wrk or curl in a subshell when a signal cut the script short.
bench_cleanup() {
    local pids=("${BENCH_PIDS[@]}") pid
    [ ! -f "$BENCH_TMP/pids" ] || mapfile -t -O "${#pids[@]}" pids <"$BENCH_TMP/pids"
    mapfile -t -O "${#pids[@]}" pids < <(bench_untracked $$ "${pids[*]}")
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.5
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT

# Ctrl-C (SIGINT to the whole process group) or SIGTERM: stop at once, say so, clean up,
# then die of the signal (the shell shows 130 or 143; a loop running the script stops too).
# A script started in the background by another script ignores SIGINT and cannot trap it:
# its servers and wrk stop, and it fails on the next server it finds gone.
bench_interrupted() {
    trap '' INT TERM   # a second Ctrl-C does not cut the cleanup short
    echo "bench: $(basename "$0"): interrupted" >&2
    bench_cleanup
    trap - EXIT "$1"
    kill -s "$1" $$
}
trap 'bench_interrupted INT' INT
trap 'bench_interrupted TERM' TERM

# bench_help: prints the calling script's header comment (its usage and settings).
bench_help() {
    awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

# bench_no_arguments "$@": for the scripts set by environment variables only. --help prints
# the header; any other argument is an error, not silently ignored (a full run would follow).
bench_no_arguments() {
    case "${1-}" in
        '') return 0 ;;
        -h | --help) bench_help; exit 0 ;;
        *) echo "bench: $(basename "$0") takes no arguments, not '$1': its settings are environment variables (see $0 --help)" >&2; exit 2 ;;
    esac
}

# bench_checkouts "$@": for the scripts that take CHECKOUT... arguments: --help prints the
# header; each argument must be a Petrel checkout with its vendor/ installed.
bench_checkouts() {
    local checkout
    for checkout in "$@"; do
        case "$checkout" in
            -h | --help) bench_help; exit 0 ;;
            -*) echo "bench: $(basename "$0"): unknown option '$checkout' (see $0 --help)" >&2; exit 2 ;;
        esac
        if [ ! -f "$checkout/bin/petrel" ] || [ ! -f "$checkout/vendor/autoload.php" ]; then
            echo "bench: $(basename "$0"): '$checkout' is not a Petrel checkout with vendor/ installed (composer install)" >&2
            exit 2
        fi
    done
}

bench_need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "bench: '$tool' is not installed (Debian: apt-get install $tool)" >&2; exit 2; }
    done
}

bench_free_port() {
    php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); $n = stream_socket_get_name($s, false); echo substr($n, strrpos($n, ":") + 1);'
}

# bench_log_tail LOG: the last 20 lines of a server's LOG but for the frames of stack traces
# (Petrel logs one with every failed request: they would fill it, hiding what failed).
bench_log_tail() {
    grep -Ev '^#[0-9]+ (\S.*\([0-9]+\): |\[internal function\]: |\{main\}$)' "$1" | tail -n 20 || true
}

# bench_wait_http URL [SECONDS [PID LOG [TRY]]]: waits until URL answers 2xx or 3xx (every
# caller's `/` does: nginx's `return 200`, the apps' pages). Fails at once when the server
# answers 4xx or 5xx three times in a row (a handler that throws, a database that is gone:
# wrk would measure the error pages), or accepts connections but answers none within TRY
# seconds (default 5) three times in a row (hung; nothing listening yet is refused at once,
# curl exit 7, not 28). With PID, gives up as soon as that process (the server) has exited.
# Each failure shows the end of LOG: the reason is there, and the log goes with the temp
# dir on exit. A server that counts its requests (bench/micro/instructions/server.php)
# passes TRY=SECONDS: a first answer slower than a try (the blog's templates compiled under
# valgrind on a busy host) must not be asked for twice.
bench_wait_http() {
    local url=$1 within=${2:-15} pid=${3:-} log=${4:-} try=${5:-5}
    local deadline=$((SECONDS + within)) body="$BENCH_TMP/wait-$BASHPID.body" status code max asked page wrong=0 hung=0 hung_since=0
    while :; do
        asked=$SECONDS max=$((deadline - SECONDS))   # each try within the time left: 1 s to TRY
        [ $max -le "$try" ] || max=$try
        [ $max -ge 1 ] || max=1
        rm -f "$body"
        code=0
        status=$(curl -s -m "$max" -o "$body" -w '%{http_code}' "$url") || code=$?
        if [ $code = 0 ]; then
            case $status in 2?? | 3??) return 0 ;; esac
        fi
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            echo "bench: the server for $url exited while starting${log:+; its log ends:}" >&2
            [ -z "$log" ] || bench_log_tail "$log" >&2
            return 1
        fi
        # Nothing answering yet (000) is starting; an error page may be a moment's (nginx
        # before its upstream is up), a few in a row are the server's answer.
        if [ "$status" = 000 ]; then wrong=0; else wrong=$((wrong + 1)); fi
        if [ $code = 28 ]; then
            [ $hung -gt 0 ] || hung_since=$asked
            hung=$((hung + 1))
        else
            hung=0
        fi
        if [ $hung -ge 3 ] || { [ $hung -gt 0 ] && [ $SECONDS -ge $deadline ]; }; then
            echo "bench: $url accepts connections but does not answer (nothing in $((SECONDS - hung_since)) s)${log:+; the log of its server ends:}" >&2
            [ -z "$log" ] || bench_log_tail "$log" >&2
            return 1
        fi
        if [ $wrong -ge 3 ]; then
            page=$(head -c 200 "$body" 2>/dev/null | tr -s '[:space:]' ' ') || true   # on one line
            page=${page# } page=${page% }
            echo "bench: $url answers HTTP $status ($wrong times in a row): $page${log:+; the log of its server ends:}" >&2
            [ -z "$log" ] || bench_log_tail "$log" >&2
            return 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "bench: $url did not come up within $within s${log:+; the log of its server ends:}" >&2
            [ -z "$log" ] || bench_log_tail "$log" >&2
            return 1
        fi
        sleep 0.1
    done
}

# bench_petrel APP PORT [start options...]: starts bin/petrel in the background.
bench_petrel() {
    local app=$1 port=$2; shift 2
    php "$BENCH_ROOT/bin/petrel" start "$app" --listen="127.0.0.1:$port" --pid-file="$BENCH_TMP/petrel-$port.pid" "$@" >"$BENCH_TMP/petrel-$port.log" 2>&1 &
    BENCH_PIDS+=($!)
    bench_wait_http "http://127.0.0.1:$port/" 15 "$!" "$BENCH_TMP/petrel-$port.log"
}

# bench_server_ticks PID: "USER SYSTEM", the CPU clock ticks used so far by the process PID
# (a server's master: bin/petrel, nginx, php-fpm), its live children and the children it has
# reaped (their time is in its cutime/cstime). Divide by `getconf CLK_TCK` for seconds.
bench_server_ticks() {
    local user system child u s
    if ! read -r user system < <(awk '{print $14 + $16, $15 + $17}' "/proc/$1/stat" 2>/dev/null); then
        echo "bench: $(basename "$0"): the server (pid $1) is gone: it exited during the run" >&2
        return 1
    fi
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null || true); do
        read -r u s < <(awk '{print $14, $15}' "/proc/$child/stat" 2>/dev/null || echo 0 0)
        user=$((user + u)) system=$((system + s))
    done
    echo "$user $system"
}

# bench_nginx PORT WORKERS HTTP_CONFIG: starts nginx on 127.0.0.1:PORT with its own temp
# paths under the bench dir; HTTP_CONFIG is the rest of the http block (server, upstreams).
bench_nginx() {
    local port=$1 workers=$2 http=$3 dir="$BENCH_TMP/nginx-$1"
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
$http
}
CONF
    nginx -c "$dir/nginx.conf" -p "$dir" -g 'daemon off;' >"$dir/stdout.log" 2>&1 &
    BENCH_PIDS+=($!)
    bench_wait_http "http://127.0.0.1:$port/" 15 "$!" "$dir/stdout.log"
}

# bench_nginx_return200 PORT WORKERS: nginx answering every request with `return 200`.
bench_nginx_return200() {
    bench_nginx "$1" "$2" "    server {
        listen 127.0.0.1:$1;
        location / { default_type text/plain; return 200 \"Hello, World!\"; }
    }"
}

# bench_round_ratio OF TO FORMAT < rates: for servers that took turns, the median of the
# rounds' ratios OF/TO with their min-max, as "median (min–max)", each printed with FORMAT
# (printf's, e.g. %.2f). rates holds one "round server req/s" line per measurement.
bench_round_ratio() {
    php -r '
        [, $of, $to, $format] = $argv;
        $rounds = [];
        foreach (explode("\n", trim(stream_get_contents(STDIN))) as $line) {
            [$round, $server, $rate] = explode(" ", $line);
            $rounds[$round][$server] = (float) $rate;
        }
        $ratios = [];
        foreach ($rounds as $rates) {
            $ratios[] = ($rates[$to] ?? 0) > 0 ? ($rates[$of] ?? 0) / $rates[$to] : 0.0;
        }
        sort($ratios);
        $n = count($ratios);
        $median = $n % 2 === 1 ? $ratios[intdiv($n, 2)] : ($ratios[$n / 2 - 1] + $ratios[$n / 2]) / 2;
        printf("{$format} ({$format}–{$format})", $median, $ratios[0], $ratios[$n - 1]);
    ' "$1" "$2" "$3"
}

# bench_wrk URL CONNECTIONS SECONDS: prints "req/s p50_ms p99_ms errors" (one line).
bench_wrk() {
    local out threads=2
    [ "$2" -lt 2 ] && threads=1
    if ! out=$(wrk -t"$threads" -c"$2" -d"${3}s" --latency "$1" 2>&1); then
        echo "bench: $(basename "$0"): wrk on $1 failed: $out" >&2   # e.g. the server is gone
        return 1
    fi
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

# bench_php_fpm NAME CHILDREN [-d ini=value...]: php-fpm (php-fpm8.2 or php-fpm) in the
# foreground with its own config under $BENCH_TMP/NAME, listening on the unix socket
# $BENCH_TMP/NAME/php-fpm.sock (its path is left in BENCH_FPM_SOCKET), `pm = static` with
# CHILDREN processes, the caller's environment passed to the scripts (clear_env = no).
# Extra -d options go to PHP (opcache settings and the like). Runs as root too (-R).
bench_php_fpm() {
    local name=$1 children=$2 dir="$BENCH_TMP/$1" fpm user=''; shift 2
    fpm=$(command -v php-fpm8.2 || command -v php-fpm) || { echo "bench: php-fpm is not installed (Debian: apt-get install php8.2-fpm)" >&2; exit 2; }
    mkdir -p "$dir"
    chmod o+x "$BENCH_TMP" "$dir"   # nginx workers (www-data) must reach the socket
    [ "$(id -u)" = 0 ] && user=$'user = root\ngroup = root'
    cat >"$dir/php-fpm.conf" <<CONF
[global]
pid = $dir/php-fpm.pid
error_log = $dir/php-fpm.log
daemonize = no
[bench]
$user
listen = $dir/php-fpm.sock
listen.mode = 0666
pm = static
pm.max_children = $children
clear_env = no
catch_workers_output = yes
CONF
    "$fpm" -R -F -y "$dir/php-fpm.conf" "$@" >"$dir/stdout.log" 2>&1 &
    BENCH_PIDS+=($!)
    local deadline=$((SECONDS + 15))
    until [ -S "$dir/php-fpm.sock" ]; do
        [ $SECONDS -lt $deadline ] || { echo "bench: php-fpm did not start:" >&2; cat "$dir/stdout.log" "$dir/php-fpm.log" >&2 2>/dev/null; return 1; }
        sleep 0.1
    done
    BENCH_FPM_SOCKET="$dir/php-fpm.sock"
}

# bench_nginx_fastcgi PORT WORKERS SCRIPT SOCKET: nginx sending every request to the front
# controller SCRIPT through php-fpm on the unix socket SOCKET (the classic PHP stack).
bench_nginx_fastcgi() {
    local port=$1 workers=$2 script=$3 socket=$4
    bench_nginx "$port" "$workers" "    upstream php { server unix:$socket; }
    server {
        listen 127.0.0.1:$port;
        root $(dirname "$script");
        location / {
            include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME $script;
            fastcgi_param SCRIPT_NAME /$(basename "$script");
            fastcgi_pass php;
        }
    }"
}
