#!/usr/bin/env bash
# PostgreSQL and Redis on loopback, in a directory of their own, for the tests and for the
# multi-node example. Installs Debian's packages when they are missing.
#
#   scripts/services.sh start   # starts both (if not running) and prints the variables to export
#   scripts/services.sh env     # prints the variables only
#   scripts/services.sh stop
#   scripts/services.sh clean   # drops the databases the tests and benchmarks created
#
# Typical use:  eval "$(scripts/services.sh start)"
# The directory is $SIGNET_SERVICES_DIR (default target/services); the ports are
# $SIGNET_PG_PORT (default 55432) and $SIGNET_REDIS_PORT (default 56379).
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${SIGNET_SERVICES_DIR:-$PWD/target/services}"
pg_port="${SIGNET_PG_PORT:-55432}"
redis_port="${SIGNET_REDIS_PORT:-56379}"

log() { echo "$@" >&2; }

pg_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$bin" ] && [ -x "$bin/initdb" ] && echo "$bin"
}

install_missing() {
    local packages=()
    pg_bin >/dev/null || packages+=(postgresql)
    command -v redis-server >/dev/null || packages+=(redis-server)
    if [ ${#packages[@]} -gt 0 ]; then
        log "==> installing ${packages[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2
        # The packages start system-wide servers; ours run on their own ports and directories.
        service postgresql stop >/dev/null 2>&1 || true
        service redis-server stop >/dev/null 2>&1 || true
    fi
}

# PostgreSQL refuses to run as root: as root, the cluster belongs to the packages' postgres user.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start_postgres() {
    local bin data="$dir/postgres"
    bin=$(pg_bin)
    if as_owner "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" 2>/dev/null; then
        return
    fi
    mkdir -p "$dir"
    if [ ! -f "$data/PG_VERSION" ]; then
        mkdir -p "$data"
        [ "$(id -u)" = 0 ] && chown postgres: "$data" && chmod 755 "$dir"
        as_owner "$bin/initdb" -D "$data" -U signet --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    fi
    log "==> starting PostgreSQL on 127.0.0.1:$pg_port"
    # Tests create a database each; fsync off keeps them fast (the data is thrown away).
    as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -o \
        "-c listen_addresses=127.0.0.1 -p $pg_port -k $data -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null
}

start_redis() {
    if redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
        return
    fi
    mkdir -p "$dir/redis"
    log "==> starting Redis on 127.0.0.1:$redis_port"
    redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$dir/redis" --save '' --appendonly no \
        --daemonize yes --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log"
    for _ in $(seq 50); do
        redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return
        sleep 0.1
    done
    log "Redis did not start; see $dir/redis/redis.log"
    exit 1
}

print_env() {
    echo "export SIGNET_TEST_POSTGRES_URL=postgres://signet@127.0.0.1:$pg_port/postgres"
    echo "export SIGNET_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
}

case "${1:-start}" in
start)
    install_missing
    start_postgres
    start_redis
    print_env
    ;;
env)
    print_env
    ;;
clean)
    url="postgres://signet@127.0.0.1:$pg_port/postgres"
    for db in $(psql "$url" -qtAc "SELECT datname FROM pg_database WHERE datname ~ '^signet_(test|nodes|bench)_'"); do
        # FORCE: a server an earlier run left behind may still hold connections to it.
        psql "$url" -qc "DROP DATABASE \"$db\" WITH (FORCE)"
    done
    ;;
stop)
    bin=$(pg_bin) && as_owner "$bin/pg_ctl" -D "$dir/postgres" -m fast stop >/dev/null 2>&1 || true
    redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
    ;;
*)
    log "usage: $0 start|env|stop"
    exit 2
    ;;
esac
