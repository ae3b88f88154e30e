#!/usr/bin/env bash
# A throwaway PostgreSQL server for GiftKeeper's tests, on loopback, in a temporary
# directory (SPEC §12). Anyone can run the same server by hand:
#
#   scripts/test-postgres.sh start   # starts it; prints its connection URL
#   scripts/test-postgres.sh url     # prints the URL of the running one
#   scripts/test-postgres.sh restart # restarts it, keeping its data and port
#   scripts/test-postgres.sh stop    # stops it and removes its directory
#
# Installs Debian's postgresql when it is missing. initdb refuses to run as root, so as
# root the server runs as the `postgres` user. Trust authentication, loopback only: the
# tests connect as `giftkeeper` to the database `giftkeeper`, no password.
# $GIFTKEEPER_TEST_POSTGRES_OPTIONS adds server options (make bench-sync: pg_stat_statements).
set -euo pipefail

STATE=${GIFTKEEPER_TEST_POSTGRES_DIR:-/tmp/giftkeeper-test-postgres-$(id -u)}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

server_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [ -z "$bin" ]; then
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
        bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    fi
    echo "$bin"
}

free_port() {  # a port nothing listens on, tried from a random start in 20000-59999
    local port=$((20000 + RANDOM % 40000)) tries
    for ((tries = 0; tries < 200; tries++)); do
        (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
        port=$((20000 + (port - 20000 + 1) % 40000))
    done
    echo "test-postgres: no free port found on 127.0.0.1" >&2
    exit 1
}

case "${1:-}" in
start)
    if [ -f "$STATE/url" ] && [ -f "$STATE/data/postmaster.pid" ]; then
        cat "$STATE/url"
        exit 0
    fi
    BIN=$(server_bin)
    rm -rf "$STATE"
    mkdir -p "$STATE"
    chmod 0700 "$STATE"
    [ "$(id -u)" = 0 ] && chown postgres "$STATE"
    PORT=${GIFTKEEPER_TEST_POSTGRES_PORT:-$(free_port)}
    as_server_user "$BIN/initdb" -D "$STATE/data" -U giftkeeper -A trust -E UTF8 --no-sync >"$STATE/initdb.log" 2>&1 ||
        { cat "$STATE/initdb.log" >&2; exit 1; }
    as_server_user "$BIN/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -w -s \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $STATE ${GIFTKEEPER_TEST_POSTGRES_OPTIONS:-}" start ||
        { cat "$STATE/server.log" >&2; exit 1; }
    as_server_user "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U giftkeeper giftkeeper
    URL="postgres://giftkeeper@127.0.0.1:$PORT/giftkeeper"
    echo "$URL" | as_server_user tee "$STATE/url" >/dev/null
    echo "$URL"
    ;;
url)
    cat "$STATE/url"
    ;;
restart)
    BIN=$(server_bin)
    as_server_user "$BIN/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -m fast -w -s restart ||
        { cat "$STATE/server.log" >&2; exit 1; }
    ;;
stop)
    if [ -d "$STATE/data" ]; then
        BIN=$(server_bin)
        as_server_user "$BIN/pg_ctl" -D "$STATE/data" -m fast -w -s stop || true
    fi
    rm -rf "$STATE"
    ;;
*)
    echo "usage: scripts/test-postgres.sh start|url|restart|stop" >&2
    exit 2
    ;;
esac
