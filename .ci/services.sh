#!/usr/bin/env bash
# Starts/stops/restarts MariaDB, PostgreSQL and Redis on loopback for the test suites.
#
#   eval "$(.ci/services.sh start)"      # start all, print the export lines for the tests
#   .ci/services.sh restart mariadb      # restart one (the pool-recovery tests use this)
#   .ci/services.sh stop
#
# Data lives under $PETREL_SERVICES_DIR (default /tmp/petrel-services). Ports are fixed and
# unusual so they don't clash with system services, and below Linux's ephemeral range
# (32768-60999): a port in it can be the local end of one of the many connections the
# tests make, and a restarted server then cannot bind it ("Address already in use": the
# test MariaDB on 33306 failed so in ServiceRestartTest). Throwaway test data, so neither
# database syncs to disk on each commit (PostgreSQL fsync=off; InnoDB flushes its log once
# a second, no doublewrite): a slow CI disk slows neither the tests nor the restarts.
# MariaDB runs its thread pool: with a thread per connection, the ~130 connections of two
# coroutine workers leave some threads waiting 100+ ms for one of 2 cores (bench/db's p99).
# It takes 4,000 connections, as the bench's own MariaDB does: the quick bench in the suite
# runs examples/db.php on it with 50 coroutine workers, whose pools (up to 64 each) held
# 870 connections at once in a run here: with 1,000 a CI run got 85 non-2xx answers at
# that point, which is what "Too many connections" (1040) gives a request (a 500).
set -euo pipefail
DIR=${PETREL_SERVICES_DIR:-/tmp/petrel-services}
MYSQL_PORT=${PETREL_MYSQL_PORT:-23306}
PG_PORT=${PETREL_PGSQL_PORT:-25432}
REDIS_PORT=${PETREL_REDIS_PORT:-16379}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
mkdir -p "$DIR"

# Daemons started here must not inherit the caller's descriptors (a test runner's pipes):
# a pipe held open by a database server would keep `phpunit | tail` waiting forever.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null || true
done

log() { echo "services: $*" >&2; }
wait_for() { # wait_for NAME SECONDS COMMAND...
    local name=$1 deadline=$((SECONDS + $2)); shift 2
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || { log "$name did not come up"; return 1; }
        sleep 0.2
    done
}

need() { # need COMMAND PACKAGE: a missing server binary is one clear line, not a silent exit 127
    command -v "$1" >/dev/null 2>&1 || { log "$1 not found: install the Debian package $2 (.ci/run does)"; return 1; }
}

mariadb_start() {
    need mariadbd mariadb-server && need mariadb-admin mariadb-client || return 1
    if [ ! -d "$DIR/mysql/mysql" ]; then
        mariadb-install-db --no-defaults --datadir="$DIR/mysql" --user=root --auth-root-authentication-method=normal --skip-test-db >"$DIR/mysql-install.log" 2>&1
        local fresh=1
    fi
    setsid mariadbd --no-defaults --datadir="$DIR/mysql" --user=root --port="$MYSQL_PORT" --bind-address=127.0.0.1 \
        --socket="$DIR/mysql.sock" --pid-file="$DIR/mysql.pid" --skip-name-resolve --innodb-buffer-pool-size=64M \
        --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 \
        --max-connections=4000 --thread-handling=pool-of-threads --log-error="$DIR/mysql.err" </dev/null >/dev/null 2>&1 &
    wait_for mariadb 60 mariadb-admin --no-defaults --socket="$DIR/mysql.sock" -uroot ping \
        || { log "the end of $DIR/mysql.err:"; tail -5 "$DIR/mysql.err" >&2; return 1; }
    if [ "${fresh:-0}" = 1 ]; then
        mariadb --no-defaults --socket="$DIR/mysql.sock" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS petrel_test CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS 'petrel'@'127.0.0.1' IDENTIFIED BY 'petrel';
CREATE USER IF NOT EXISTS 'petrel'@'localhost' IDENTIFIED BY 'petrel';
GRANT ALL ON *.* TO 'petrel'@'127.0.0.1';
GRANT ALL ON *.* TO 'petrel'@'localhost';
SQL
    fi
}
mariadb_stop() {
    [ -f "$DIR/mysql.pid" ] || return 0
    local pid deadline=$((SECONDS + 20))
    pid=$(cat "$DIR/mysql.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do
        if [ $SECONDS -ge $deadline ]; then
            # Never start a second server over one still shutting down (both would hold
            # the port and the data directory): kill it, say so, show why it was stuck.
            log "mariadbd $pid did not stop within 20 s; killing it. The end of $DIR/mysql.err:"
            tail -5 "$DIR/mysql.err" >&2 || true
            kill -9 "$pid" 2>/dev/null || true
            while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
            break
        fi
        sleep 0.2
    done
    rm -f "$DIR/mysql.pid"
}

pg() { runuser -u postgres -- "$@"; }
postgres_start() {
    [ -n "$PG_BIN" ] || { log "PostgreSQL is not installed: install the Debian package postgresql (.ci/run does)"; return 1; }
    if [ ! -f "$DIR/pg/PG_VERSION" ]; then
        mkdir -p "$DIR/pg" && chown postgres "$DIR/pg" && chmod 700 "$DIR/pg"
        pg "$PG_BIN/initdb" -D "$DIR/pg" -U postgres --auth-local=trust --auth-host=scram-sha-256 >"$DIR/pg-install.log" 2>&1
        local fresh=1
    fi
    chown postgres "$DIR"
    pg "$PG_BIN/pg_ctl" -D "$DIR/pg" -l "$DIR/pg.log" -w -t 60 \
        -o "-p $PG_PORT -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=500 -c fsync=off" start </dev/null >/dev/null 2>&1 \
        || { log "PostgreSQL did not start; the end of $DIR/pg.log:"; tail -5 "$DIR/pg.log" >&2; return 1; }
    if [ "${fresh:-0}" = 1 ]; then
        pg psql -h "$DIR" -p "$PG_PORT" -U postgres -q -c "CREATE ROLE petrel LOGIN SUPERUSER PASSWORD 'petrel'" -c "CREATE DATABASE petrel_test OWNER petrel" >/dev/null
    fi
}
postgres_stop() {
    [ -n "$PG_BIN" ] && [ -f "$DIR/pg/postmaster.pid" ] && pg "$PG_BIN/pg_ctl" -D "$DIR/pg" -m fast -w stop >/dev/null 2>&1 || true
}

redis_start() {
    need redis-server redis-server && need redis-cli redis-server || return 1
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
        --dir "$DIR" --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" </dev/null >/dev/null 2>&1
    wait_for redis 30 redis-cli -p "$REDIS_PORT" ping
}
redis_stop() {
    redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
    rm -f "$DIR/redis.pid"
}

exports() {
    echo "export MYSQL_URL=mysql://petrel:petrel@127.0.0.1:$MYSQL_PORT/petrel_test"
    echo "export PGSQL_URL=pgsql://petrel:petrel@127.0.0.1:$PG_PORT/petrel_test"
    echo "export REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
    echo "export PETREL_SERVICES_SCRIPT=$(cd "$(dirname "$0")" && pwd)/services.sh"
}

service() { # service NAME ACTION
    case "$1" in
        mariadb|mysql) "mariadb_$2" ;;
        postgres|postgresql|pgsql) "postgres_$2" ;;
        redis) "redis_$2" ;;
        *) log "unknown service $1 (mariadb, postgres, redis)"; return 2 ;;
    esac
}

case "${1:-}" in
    start)
        for s in ${2:-mariadb postgres redis}; do service "$s" stop; service "$s" start; log "$s up"; done
        exports ;;
    stop) for s in ${2:-mariadb postgres redis}; do service "$s" stop; done ;;
    restart) service "${2:?which service}" stop; service "$2" start ;;
    env) exports ;;
    *) echo "usage: $0 start [SERVICES] | stop [SERVICES] | restart SERVICE | env" >&2; exit 2 ;;
esac
