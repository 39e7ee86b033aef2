#!/usr/bin/env bash
# bench/micro/http-instructions.sh — CPU instructions the HTTP server executes per keep-alive
# request, counted by valgrind: the same figure on every run, whatever else the machine does.
#
#   bench/micro/http-instructions.sh                  # this checkout, examples/hello.php
#   bench/micro/http-instructions.sh /tmp/base .      # A/B: two checkouts (each with vendor/)
#   N=2000 APP=examples/hello.php bench/micro/http-instructions.sh
#   CONNECTIONS=1 bench/micro/http-instructions.sh    # one ready connection per loop wait
#   OPCACHE=1 bench/micro/http-instructions.sh        # opcache on, JIT off: as bin/petrel runs
#   WORKER=1 bench/micro/http-instructions.sh         # the worker's path: metrics, fatal-error 500
#
# For each checkout it runs bench/micro/instructions/server.php (an Http\Server in one
# process) under `valgrind --tool=callgrind` twice, for N and for 2N requests sent by
# bench/micro/instructions/client.php (50 keep-alive connections, a 2 ms pause after each
# response, as wrk's clients leave the server to its loop between requests), and prints
# (instructions(2N) - instructions(N)) / N: start-up and shut-down cancel out. No JIT
# (valgrind), so the figure is the interpreter's; syscalls' kernel time is not in it. Use
# it to compare changes to the request path; use http-cpu.sh or bench/hello for speed.
# With 50 connections the figure moves by a few hundred from run to run (how many
# connections each loop wait finds ready depends on timing); CONNECTIONS=1 is the same to
# within ~10 on nearly every run and counts the loop's whole cost per wait: the one to A/B
# with. Now and then a run comes out 5-6k high (seen on both settings, cause not found; not
# a GC run): run each checkout twice and take the lower figure.
# Needs valgrind, curl and php. About a minute per checkout.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
HERE=$BENCH_ROOT
N=${N:-2000}
APP=${APP:-examples/hello.php}
CONNECTIONS=${CONNECTIONS:-50}
PAUSE_MS=${PAUSE_MS:-2}
PHP_FLAGS=()
[ "${OPCACHE:-0}" = 1 ] && PHP_FLAGS=(-d opcache.enable_cli=1 -d opcache.jit=disable)
bench_checkouts "$@"
bench_need valgrind curl php
[ $# -gt 0 ] || set -- "$HERE"

# count CHECKOUT REQUESTS: total instructions of a server run that answers REQUESTS.
count() {
    local root=$1 requests=$2 port log
    port=$(bench_free_port)
    log="$BENCH_TMP/valgrind.log"
    (cd "$root" && PETREL_ROOT=$root exec valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        php ${PHP_FLAGS[@]+"${PHP_FLAGS[@]}"} "$HERE/bench/micro/instructions/server.php" "$port" "$requests" "$APP") >"$log" 2>&1 &
    local server=$! total
    bench_track "$server"   # stopped on exit, when the client fails or on Ctrl-C: it serves on otherwise
    # Called as $(count …), where bash drops set -e: each step checked, or a failed client
    # would leave `wait` waiting on a server that waits for requests.
    bench_wait_http "http://127.0.0.1:$port/" 60 "$server" "$log" 60 || return 1
    php "$HERE/bench/micro/instructions/client.php" "$port" $((requests - 1)) "$CONNECTIONS" "$PAUSE_MS" || return 1
    wait "$server" || { echo "http-instructions: the server under valgrind failed:" >&2; tail -n 20 "$log" >&2; return 1; }
    total=$(awk '/ refs:/ { gsub(",", "", $4); print $4 }' "$log")
    [ -n "$total" ] || { echo "http-instructions: no instruction count in valgrind's output:" >&2; tail -n 20 "$log" >&2; return 1; }
    echo "$total"
}

printf 'http-instructions — PHP %s, %s, %d and %d requests on %d connections%s%s\n' \
    "$(php -r 'echo PHP_VERSION;')" "$APP" "$N" $((2 * N)) "$CONNECTIONS" "$([ ${#PHP_FLAGS[@]} -gt 0 ] && echo ', opcache on')" \
    "$([ "${WORKER:-0}" = 1 ] && echo ", the worker's path")"
for checkout in "$@"; do
    root=$(cd "$checkout" && pwd)
    small=$(count "$root" "$N")
    large=$(count "$root" $((2 * N)))
    printf '%-40s %8d instructions/request\n' "$root" $(((large - small) / N))
done
