#!/usr/bin/env bash
# A throwaway giftkeeper-server for GiftKeeper's tests (SPEC §12): PostgreSQL from
# scripts/test-postgres.sh, a throwaway certificate authority and certificate (openssl,
# for 127.0.0.1 and localhost), `giftkeeper-server migrate`, then `giftkeeper-server
# serve` with TLS on loopback. Anyone can run the same pair by hand:
#
#   scripts/test-server.sh start    # starts both; prints the service's URL
#   scripts/test-server.sh url      # the service's URL (https://127.0.0.1:PORT)
#   scripts/test-server.sh db-url   # the database's URL, as its owner (for inspection)
#   scripts/test-server.sh env      # the exports a device needs to trust the certificate, and the tests' URLs
#   scripts/test-server.sh restart  # restarts both, keeping their data and ports
#   scripts/test-server.sh stop     # stops both and removes their directories
#
# The service's binary is $GIFTKEEPER_SERVER_BINARY, else the debug build's. Its port is
# $GIFTKEEPER_TEST_SERVER_PORT, else one the system chooses (kept for restarts);
# PostgreSQL's is chosen by test-postgres.sh. $GIFTKEEPER_TEST_SERVER_ARGS adds options to
# `serve` (make bench-sync: its quotas).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
STATE=${GIFTKEEPER_TEST_SERVER_DIR:-/tmp/giftkeeper-test-server-$(id -u)}
SERVE_ROLE=giftkeeper_serve

server_binary() {
    if [ -n "${GIFTKEEPER_SERVER_BINARY:-}" ]; then
        echo "$GIFTKEEPER_SERVER_BINARY"
    else
        echo "$(cd "$HERE/.." && swift build --show-bin-path)/giftkeeper-server"
    fi
}

make_certificates() {  # a CA, and a leaf for 127.0.0.1 and localhost signed by it
    command -v openssl >/dev/null || {
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl >/dev/null
    }
    local dir=$STATE/certs
    mkdir -p "$dir"
    chmod 0700 "$dir"
    (
        cd "$dir"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=giftkeeper-test-ca \
            -keyout ca.key -out ca.pem -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
            -keyout server.key -out server.csr 2>/dev/null
        printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' >leaf.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile leaf.ext \
            -out server.pem 2>/dev/null
        chmod 0600 ./*.key
    )
}

serve() {  # starts the service in the background and waits for its "serving" line
    local binary port serve_url
    binary=$(server_binary)
    port=$(cat "$STATE/port" 2>/dev/null || echo "${GIFTKEEPER_TEST_SERVER_PORT:-0}")  # 0: the system chooses
    serve_url=$(sed "s|//[^@]*@|//$SERVE_ROLE@|" "$STATE/db-url")
    local extra
    read -r -a extra <<<"${GIFTKEEPER_TEST_SERVER_ARGS:-}"
    : >"$STATE/server.log"
    setsid "$binary" serve --database "$serve_url" --listen "127.0.0.1:$port" \
        --tls-cert "$STATE/certs/server.pem" --tls-key "$STATE/certs/server.key" "${extra[@]}" \
        </dev/null >>"$STATE/server.log" 2>&1 &
    echo $! >"$STATE/pid"
    local tries
    for ((tries = 0; tries < 300; tries++)); do
        if grep -q "serving https://" "$STATE/server.log"; then  # its port, kept for restarts
            sed -n 's|.*serving https://127.0.0.1:\([0-9]*\).*|\1|p' "$STATE/server.log" | head -1 >"$STATE/port"
            return 0
        fi
        kill -0 "$(cat "$STATE/pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "test-server: giftkeeper-server did not start:" >&2
    cat "$STATE/server.log" >&2
    exit 1
}

stop_service() {
    if [ -f "$STATE/pid" ]; then
        local pid tries
        pid=$(cat "$STATE/pid")
        kill "$pid" 2>/dev/null || true
        for ((tries = 0; tries < 100; tries++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$STATE/pid"
    fi
}

# The PostgreSQL of this service: the one `start` used, whatever this call's environment says.
if [ -f "$STATE/postgres-dir" ]; then
    GIFTKEEPER_TEST_POSTGRES_DIR=$(cat "$STATE/postgres-dir")
    export GIFTKEEPER_TEST_POSTGRES_DIR
fi

case "${1:-}" in
start)
    if [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2>/dev/null; then
        echo "https://127.0.0.1:$(cat "$STATE/port")"
        exit 0
    fi
    rm -rf "$STATE"
    mkdir -p "$STATE"
    chmod 0700 "$STATE"
    echo "${GIFTKEEPER_TEST_POSTGRES_DIR:-/tmp/giftkeeper-test-postgres-$(id -u)}" >"$STATE/postgres-dir"
    "$HERE/test-postgres.sh" start >"$STATE/db-url"
    make_certificates
    "$(server_binary)" migrate --database "$(cat "$STATE/db-url")" --serve-role "$SERVE_ROLE" >"$STATE/migrate.log" 2>&1 ||
        { cat "$STATE/migrate.log" >&2; exit 1; }
    serve
    echo "https://127.0.0.1:$(cat "$STATE/port")"
    ;;
url)
    echo "https://127.0.0.1:$(cat "$STATE/port")"
    ;;
db-url)
    cat "$STATE/db-url"
    ;;
env)
    echo "export GIFTKEEPER_CA_FILE='$STATE/certs/ca.pem'"
    echo "export GIFTKEEPER_TEST_SERVICE_URL='https://127.0.0.1:$(cat "$STATE/port")'"
    echo "export GIFTKEEPER_TEST_SERVICE_DB_URL='$(cat "$STATE/db-url")'"
    echo "export GIFTKEEPER_TEST_SERVICE_CERT_DIR='$STATE/certs'"
    ;;
restart)
    stop_service
    "$HERE/test-postgres.sh" restart
    serve
    ;;
stop)
    stop_service
    "$HERE/test-postgres.sh" stop
    rm -rf "$STATE"
    ;;
*)
    echo "usage: scripts/test-server.sh start|stop|restart|url|db-url|env" >&2
    exit 2
    ;;
esac
