#!/usr/bin/env bash
# PostgreSQL and Redis on loopback, in directories of their own, for the tests and for the
# multi-node example. Installs Debian's packages when they are missing.
#
#   scripts/services.sh start     # installs, starts both (if not running), prints the variables
#   scripts/services.sh env       # prints the variables only
#   scripts/services.sh install   # installs the packages only
#   scripts/services.sh stop
#   scripts/services.sh clean     # drops the databases the tests and benchmarks created
#
# Typical use:  services=$(scripts/services.sh start) && eval "$services"
# (`eval "$(scripts/services.sh start)"` alone would carry on past a failure: the status of a
# command substitution inside eval is lost.)
#
# Where the data lives: Redis in $SIGNET_SERVICES_DIR/redis (default target/services/redis).
# PostgreSQL's cluster in $SIGNET_PG_DATA; by default, for a user other than root,
# $SIGNET_SERVICES_DIR/postgres, and as root (PostgreSQL refuses to run as root, so the packages'
# `postgres` user runs it, and that user may not be able to enter the checkout: a home directory
# of mode 700, a `mktemp -d` directory) /var/lib/postgresql/signet-KEY, owned by `postgres`, where
# KEY is taken from the services directory's path, so that two checkouts never share a cluster.
# The ports are $SIGNET_PG_PORT (default 55432) and $SIGNET_REDIS_PORT (default 56379). A port
# held by anything else (another checkout's cluster, another program) stops `start` with a line
# that says so.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${SIGNET_SERVICES_DIR:-$PWD/target/services}"
dir=$(realpath -m "$dir")
pg_port="${SIGNET_PG_PORT:-55432}"
redis_port="${SIGNET_REDIS_PORT:-56379}"
if [ -n "${SIGNET_PG_DATA:-}" ]; then
    pg_data=$SIGNET_PG_DATA
elif [ "$(id -u)" = 0 ]; then
    pg_data="/var/lib/postgresql/signet-$(printf '%s' "$dir" | sha256sum | cut -c1-12)"
else
    pg_data="$dir/postgres"
fi
pg_data=$(realpath -m "$pg_data")
pg_url="postgres://signet@127.0.0.1:$pg_port/postgres"

log() { echo "$@" >&2; }

# One line that names the cause and what to do, then stop.
die() {
    log "services.sh: $*"
    exit 1
}

pg_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$bin" ] && [ -x "$bin/initdb" ] && echo "$bin"
}

# Whether anything accepts connections on a loopback port.
listening() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

install_missing() {
    local packages=()
    pg_bin >/dev/null || packages+=(postgresql)
    command -v redis-server >/dev/null || packages+=(redis-server)
    [ ${#packages[@]} -gt 0 ] || return 0
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || die "${packages[*]} missing and not root: install them (apt-get install ${packages[*]})"
        sudo=(sudo)
    fi
    log "==> installing ${packages[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 ||
        die "apt-get update failed (see above): Debian's package index must be reachable to install ${packages[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2 ||
        die "apt-get install ${packages[*]} failed (see above)"
    # The packages start system-wide servers; ours run on their own ports and directories.
    "${sudo[@]}" service postgresql stop >/dev/null 2>&1 || true
    "${sudo[@]}" service redis-server stop >/dev/null 2>&1 || true
}

# PostgreSQL refuses to run as root: as root, the cluster belongs to the packages' postgres user
# (run from /, a directory it may enter: every path given to it is absolute).
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

# How a command of as_owner reads when printed for a person to run.
as_owner_prefix() {
    [ "$(id -u)" = 0 ] && echo "runuser -u postgres -- "
    return 0
}

# The data directory of the cluster answering on the port, or nothing if it does not let this
# checkout's superuser in.
serving_data_directory() {
    PGCONNECT_TIMEOUT=3 psql "$pg_url" -qtAc 'SHOW data_directory' 2>/dev/null
}

start_postgres() {
    local bin serving
    bin=$(pg_bin) || die "PostgreSQL's server programs are not installed (apt-get install postgresql)"
    if listening "$pg_port"; then
        serving=$(serving_data_directory) ||
            die "port $pg_port is in use, and not by a PostgreSQL that lets signet in: stop what holds it, or choose another port with SIGNET_PG_PORT"
        [ "$(realpath -m "$serving")" = "$pg_data" ] ||
            die "port $pg_port is held by another PostgreSQL cluster ($serving): stop it ($(as_owner_prefix)$bin/pg_ctl -D $serving stop), or choose another port with SIGNET_PG_PORT"
        return 0
    fi
    if [ ! -f "$pg_data/PG_VERSION" ]; then
        if [ "$(id -u)" = 0 ] && [ ! -e "$pg_data" ]; then
            mkdir -p "$pg_data"
            chown postgres: "$pg_data"
            chmod 700 "$pg_data"
        fi
        log "==> creating PostgreSQL's cluster in $pg_data"
        as_owner "$bin/initdb" -D "$pg_data" -U signet --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null ||
            die "PostgreSQL's cluster could not be created in $pg_data (initdb's error above): give its user ($(as_owner id -un)) a directory it can write, with SIGNET_PG_DATA"
    fi
    log "==> starting PostgreSQL on 127.0.0.1:$pg_port (data in $pg_data)"
    # Tests create a database each; fsync off keeps them fast (the data is thrown away). The
    # socket lives in the data directory, the one place its user can surely write.
    as_owner "$bin/pg_ctl" -D "$pg_data" -l "$pg_data/server.log" -w -t 60 -o \
        "-c listen_addresses=127.0.0.1 -p $pg_port -k $pg_data -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start >/dev/null ||
        die "PostgreSQL did not start on 127.0.0.1:$pg_port: $(as_owner tail -n 3 "$pg_data/server.log" 2>/dev/null | tr '\n' ' ')(the whole log: $pg_data/server.log)"
    serving=$(serving_data_directory) ||
        die "PostgreSQL started on 127.0.0.1:$pg_port but does not answer $pg_url (see $pg_data/server.log)"
    [ "$(realpath -m "$serving")" = "$pg_data" ] || die "port $pg_port answers from $serving, not $pg_data"
}

start_redis() {
    if timeout 2 redis-cli -p "$redis_port" ping >/dev/null 2>&1; then
        return 0
    fi
    listening "$redis_port" &&
        die "port $redis_port is in use, and not by Redis: stop what holds it, or choose another port with SIGNET_REDIS_PORT"
    mkdir -p "$dir/redis"
    log "==> starting Redis on 127.0.0.1:$redis_port (data in $dir/redis)"
    redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$dir/redis" --save '' --appendonly no \
        --daemonize yes --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" ||
        die "redis-server could not be started in $dir/redis (see above)"
    for _ in $(seq 50); do
        timeout 2 redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    die "Redis did not start on 127.0.0.1:$redis_port: $(tail -n 3 "$dir/redis/redis.log" 2>/dev/null | tr '\n' ' ')(the whole log: $dir/redis/redis.log)"
}

print_env() {
    echo "# PostgreSQL's data: $pg_data; Redis's: $dir/redis"
    echo "export SIGNET_TEST_POSTGRES_URL=$pg_url"
    echo "export SIGNET_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
}

case "${1:-start}" in
start)
    install_missing
    start_postgres
    start_redis
    print_env
    ;;
install)
    install_missing
    ;;
env)
    print_env
    ;;
clean)
    databases=$(PGCONNECT_TIMEOUT=3 psql "$pg_url" -qtAc "SELECT datname FROM pg_database WHERE datname ~ '^signet_(test|nodes|bench)_'") ||
        die "PostgreSQL does not answer $pg_url: start it first (scripts/services.sh start)"
    # Eight at a time: each drop waits for a checkpoint, and drops that wait together share one.
    # FORCE: a server an earlier run left behind may still hold connections to it. (The names
    # are the pattern's: letters, digits and underscores.)
    printf '%s\n' $databases | xargs -r -P 8 -I '{}' psql "$pg_url" -qc 'DROP DATABASE "{}" WITH (FORCE)'

    ;;
stop)
    if bin=$(pg_bin) && [ -f "$pg_data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$pg_data" -m fast stop >/dev/null 2>&1 || true
    fi
    if [ -f "$dir/redis/redis.pid" ]; then
        timeout 5 redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
    fi
    ;;
*)
    log "usage: $0 start|env|install|stop|clean"
    exit 2
    ;;
esac
