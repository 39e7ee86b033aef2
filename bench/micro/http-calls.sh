#!/usr/bin/env bash
# bench/micro/http-calls.sh — the PHP function calls the HTTP server makes per keep-alive
# request, by function: what http-instructions.sh counts in instructions, told by name. The
# same figures on every run (on one connection, the default, no batching varies), for
# finding what a request calls that it need not, and for A/B of a change to the request path.
#
#   bench/micro/http-calls.sh                       # this checkout, examples/hello.php
#   bench/micro/http-calls.sh /tmp/base .           # A/B: the functions whose counts differ
#   APP=examples/blog/app.php WORKER=1 OPCACHE=1 bench/micro/http-calls.sh
#   TOP=0 bench/micro/http-calls.sh                 # every function, not the 40 most called
#   CONNECTIONS=50 bench/micro/http-calls.sh        # the loop's work shared by ready connections
#
# For each checkout it runs bench/micro/instructions/server.php (as http-instructions.sh
# does; WORKER=1: the worker's path) with Xdebug's function trace, for N and for 3N
# requests sent on CONNECTIONS keep-alive connections (1) by
# bench/micro/instructions/client.php, and prints (calls(3N) - calls(N)) / 2N for each function: start-up and shut-down cancel out.
# Internal functions (fread, hrtime) are counted too; calls the engine makes without a call
# opcode (strlen, count, is_* with a leading backslash) are not. A figure like 0.01 is a
# loop timer or sweep that fell in one window. With CONNECTIONS above 1 the loop's work per
# wait is shared by the connections it finds ready, which varies from run to run (and the
# trace slows the server, so more are ready than under wrk): read those counts as an
# example, not a constant. Timings in a trace mean nothing here.
#
# Needs Xdebug, loaded only for these runs: `apt-get install php8.2-xdebug` then
# `phpdismod xdebug` (Debian enables it for every PHP run otherwise, which slows everything),
# or without installing it `apt-get download php8.2-xdebug && dpkg -x php8.2-xdebug_*.deb
# /tmp/xd` and XDEBUG=/tmp/xd/usr/lib/php/20220829/xdebug.so. About 10 s per checkout for
# hello, a minute for the blog.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
HERE=$BENCH_ROOT
N=${N:-100}
APP=${APP:-examples/hello.php}
TOP=${TOP:-40}
PAUSE_MS=${PAUSE_MS:-2}
CONNECTIONS=${CONNECTIONS:-1}
XDEBUG=${XDEBUG:-xdebug.so}
PHP_FLAGS=(-d "zend_extension=$XDEBUG" -d xdebug.mode=trace -d xdebug.start_with_request=yes -d xdebug.trace_format=1)
[ "${OPCACHE:-0}" = 1 ] && PHP_FLAGS=(-d opcache.enable_cli=1 -d opcache.jit=disable "${PHP_FLAGS[@]}")
bench_checkouts "$@"
bench_need curl php
if ! php -d "zend_extension=$XDEBUG" -m 2>/dev/null | grep -qx xdebug; then
    echo "http-calls: Xdebug is not loadable as '$XDEBUG' (see this script's header)" >&2
    exit 2
fi
[ $# -gt 0 ] || set -- "$HERE"

# calls CHECKOUT REQUESTS OUT: "count function" lines (sorted by function) of a server run
# that answers REQUESTS; closures are named without the checkout's path, so two compare.
calls() {
    local root=$1 requests=$2 out=$3 port trace
    port=$(bench_free_port)
    trace="$BENCH_TMP/trace-$requests"
    rm -f "$trace.xt"
    (cd "$root" && PETREL_ROOT=$root exec php "${PHP_FLAGS[@]}" -d "xdebug.output_dir=$BENCH_TMP" \
        -d "xdebug.trace_output_name=$(basename "$trace")" \
        "$HERE/bench/micro/instructions/server.php" "$port" "$requests" "$APP") >"$BENCH_TMP/server.log" 2>&1 &
    local server=$!
    bench_track "$server"
    bench_wait_http "http://127.0.0.1:$port/" 60 "$server" "$BENCH_TMP/server.log" 60
    php "$HERE/bench/micro/instructions/client.php" "$port" $((requests - 1)) "$CONNECTIONS" "$PAUSE_MS" >/dev/null
    wait "$server"
    # Trace format 1: an entry line has 0 in its third field and the function in its sixth.
    awk -F'\t' -v root="$root/" -v here="$HERE/" \
        '$3 == "0" { f = $6; gsub(root, "", f); gsub(here, "", f); n[f]++ } END { for (f in n) print n[f], f }' "$trace.xt" \
        | sort -k2 >"$out"
    rm -f "$trace.xt"
}

# per-request CHECKOUT OUT: "calls-per-request function" lines, sorted by function.
per_request() {
    local root=$1 out=$2
    calls "$root" "$N" "$BENCH_TMP/small"
    calls "$root" $((3 * N)) "$BENCH_TMP/large"
    join -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 "$BENCH_TMP/small" "$BENCH_TMP/large" \
        | awk -v n="$N" '{ d = ($3 - $2) / (2 * n); if (d >= 0.005 || d <= -0.005) printf "%.2f %s\n", d, $1 }' \
        | sort -k2 >"$out"
}

printf 'http-calls — PHP %s, %s, %d and %d requests on %d connection(s)%s%s\n' \
    "$(php -r 'echo PHP_VERSION;')" "$APP" "$N" $((3 * N)) "$CONNECTIONS" "$([ "${OPCACHE:-0}" = 1 ] && echo ', opcache on')" \
    "$([ "${WORKER:-0}" = 1 ] && echo ", the worker's path")"
if [ $# -eq 1 ]; then
    per_request "$(cd "$1" && pwd)" "$BENCH_TMP/a"
    awk '{ total += $1 } END { printf "%8.2f calls per request in all\n", total }' "$BENCH_TMP/a"
    sort -k1,1nr -k2 "$BENCH_TMP/a" >"$BENCH_TMP/sorted"
    [ "$TOP" -gt 0 ] && lines=$TOP || lines=$(wc -l <"$BENCH_TMP/sorted")
    head -n "$lines" "$BENCH_TMP/sorted" | awk '{ printf "%8.2f %s\n", $1, $2 }'
    exit 0
fi
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
per_request "$a" "$BENCH_TMP/a"
per_request "$b" "$BENCH_TMP/b"
printf '%8s %8s  %s\n' A B "function (A: $a, B: $b; where they differ by more than a stray timer)"
join -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 "$BENCH_TMP/a" "$BENCH_TMP/b" \
    | awk '{ d = $3 - $2 } d > 0.015 || d < -0.015 { printf "%8.2f %8.2f  %s\n", $2, $3, $1 }'
awk '{ total += $1 } END { printf "%8.2f", total }' "$BENCH_TMP/a"
awk '{ total += $1 } END { printf " %8.2f  calls per request in all\n", total }' "$BENCH_TMP/b"
