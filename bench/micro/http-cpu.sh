#!/usr/bin/env bash
# bench/micro/http-cpu.sh — worker CPU time per request, the metric to use on a noisy machine.
#
#   bench/micro/http-cpu.sh                       # examples/hello.php, 1 worker, c=100, 5 x 5 s
#   bench/micro/http-cpu.sh /tmp/base .           # A/B: two checkouts, runs interleaved
#   APP=examples/sleep.php RUNS=3 DURATION=3 CONNS=10 bench/micro/http-cpu.sh
#   PETREL_OPTIONS=--mode=sync bench/micro/http-cpu.sh
#
# Throughput from wrk swings with whatever else runs on the machine; the CPU time the worker
# spends per request (utime + stime from /proc/PID/stat, divided by the requests wrk counted)
# swings much less. For each checkout given (default: this one) it starts bin/petrel with one
# worker on a free port and warms it up; then it runs wrk RUNS times against each in turn,
# so that a comparison sees the same background load, and prints µs/request per run and the
# median per checkout. APP is relative to each checkout. Needs Linux, wrk, curl and php.
#
# Even this metric moves ±30% when other processes compete for the two cores (a starved
# worker batches more per stream_select and spends less per request), so compare checkouts
# in one interleaved invocation, with several runs, and trust only differences well above the
# spread of the runs. SYSCALLS=1 adds a steadier count: recvfrom, sendto and pselect6 calls
# per request during each run (needs perf and the syscalls tracepoints).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
APP=${APP:-examples/hello.php}
RUNS=${RUNS:-5}
DURATION=${DURATION:-5}
CONNS=${CONNS:-100}
URL_PATH=${URL_PATH:-/}
TICKS=$(getconf CLK_TCK)
for arg in "$@"; do
    case "$arg" in
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "http-cpu: unknown option '$arg' (see $0 --help)" >&2; exit 2 ;;
    esac
    [ -f "$arg/bin/petrel" ] && [ -f "$arg/vendor/autoload.php" ] \
        || { echo "http-cpu: '$arg' is not a Petrel checkout with vendor/ installed (composer install)" >&2; exit 2; }
done
for tool in wrk curl php; do
    command -v "$tool" >/dev/null || { echo "http-cpu: '$tool' is not installed (Debian: apt-get install $tool)" >&2; exit 2; }
done
TMP=$(mktemp -d /tmp/petrel-http-cpu.XXXXXX)
[ $# -gt 0 ] || set -- "$HERE"

cleanup() {
    local file pid
    for file in "$TMP"/*.pid; do
        pid=$(cat "$file" 2>/dev/null || true)
        [ -n "$pid" ] || continue
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
# Ctrl-C or SIGTERM: stop at once, say so, clean up, then die of the signal (the shell shows
# 130 or 143). wrk stops on SIGINT with exit 0, so the script used to carry on, to awk on the
# /proc/PID/stat of a worker that had stopped too.
interrupted() {
    trap '' INT TERM   # a second Ctrl-C does not cut the cleanup short
    echo "http-cpu: interrupted" >&2
    cleanup
    trap - EXIT "$1"
    kill -s "$1" $$
}
trap 'interrupted INT' INT
trap 'interrupted TERM' TERM

free_port() {
    php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'
}

roots=() ports=() workers=()
waited=0
for i in $(seq 0 $(($# - 1))); do
    root=$(cd "${@:$((i + 1)):1}" && pwd)
    port=$(free_port)
    # shellcheck disable=SC2086
    php "$root/bin/petrel" start "$root/$APP" --listen="127.0.0.1:$port" --workers=1 --pid-file="$TMP/$i.pid" \
        ${PETREL_OPTIONS:-} >"$TMP/$i.log" 2>&1 &
    server=$!
    until curl -fs -m 2 "http://127.0.0.1:$port$URL_PATH" >/dev/null 2>&1; do
        # Its log says why, and goes with $TMP on exit: show it.
        if ! kill -0 "$server" 2>/dev/null || [ "$((++waited))" -gt 100 ]; then
            echo "http-cpu: $root/$APP does not serve http://127.0.0.1:$port$URL_PATH; its log ends:" >&2
            tail -n 20 "$TMP/$i.log" >&2
            exit 1
        fi
        sleep 0.1
    done
    master=$(cat "$TMP/$i.pid")
    worker=$(awk '{print $1}' "/proc/$master/task/$master/children")
    [ -n "$worker" ] || { echo "no worker process for $root" >&2; cat "$TMP/$i.log" >&2; exit 1; }
    wrk -t1 -c"$CONNS" -d3s "http://127.0.0.1:$port$URL_PATH" >/dev/null   # warm-up (JIT traces)
    roots+=("$root") ports+=("$port") workers+=("$worker")
done

cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null \
        || { echo "http-cpu: the worker (pid $1) is gone: it exited during the run" >&2; return 1; }
}

declare -A results=()
for run in $(seq "$RUNS"); do
    for i in "${!roots[@]}"; do
        if [ "${SYSCALLS:-0}" = 1 ]; then
            perf stat -x, -e syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,syscalls:sys_enter_pselect6 \
                -p "${workers[$i]}" -o "$TMP/perf.txt" -- sleep "$DURATION" &
            perf_pid=$!
        fi
        before=$(cpu_ticks "${workers[$i]}")
        out=$(wrk -t1 -c"$CONNS" -d"${DURATION}s" "http://127.0.0.1:${ports[$i]}$URL_PATH")
        after=$(cpu_ticks "${workers[$i]}")
        requests=$(echo "$out" | awk '/requests in/ {print $1}')
        rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
        us=$(php -r 'printf("%.2f", ($argv[2] - $argv[1]) / $argv[3] * 1e6 / $argv[4]);' "$before" "$after" "$TICKS" "$requests")
        results[$i]="${results[$i]:-} $us"
        printf 'run %d %-40s %9s req/s %8s requests %7s µs CPU/request\n' "$run" "${roots[$i]}" "$rps" "$requests" "$us"
        if [ "${SYSCALLS:-0}" = 1 ]; then
            wait "$perf_pid" || true
            # Ratios to sendto (one per response): the calls the worker made per request.
            awk -F, '/sys_enter/ {n[$3] = $1} END {s = n["syscalls:sys_enter_sendto"]; if (s > 0)
                printf "      per request: %.2f recvfrom, %.3f pselect6\n", n["syscalls:sys_enter_recvfrom"] / s, n["syscalls:sys_enter_pselect6"] / s}' "$TMP/perf.txt"
        fi
    done
done
for i in "${!roots[@]}"; do
    median=$(echo "${results[$i]}" | tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf 'median %-40s %7s µs CPU/request\n' "${roots[$i]}" "$median"
done
