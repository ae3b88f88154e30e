#!/usr/bin/env bash
# The sync service's figures (issue 27, SPEC §12, docs/performance.md): whole processes on
# loopback with TLS — PostgreSQL and two giftkeeper-server processes in front of it
# (scripts/test-server.sh starts the first, with its throwaway certificate authority; the
# second serves the same database with the same certificate), the giftkeeper binary as
# devices, and giftkeeper-bench-sync for a thousand simulated ones — each figure beside its
# bound measured in the same run; exit 1 when one is missed.
#
#   scripts/bench-sync.sh [GIFTKEEPER] [GIFTKEEPER_SERVER] [BENCH_TOOL]
#       (defaults: .build/release/giftkeeper, giftkeeper-server, giftkeeper-bench-sync)
#
# BENCH_PGBOUNCER=1 puts the second process's pool behind PgBouncer in transaction pooling
# (its LISTEN connection, --listen-database, straight to PostgreSQL; docs/scaling.md).
#
# (The devices, 5., run first.)
# 1. change: an append's round trip through the service (TLS, warm connection, one frame
#    of FRAME_BYTES and the device's posted head), median of 500, against a bare prepared
#    INSERT … COMMIT of the same bytes into a table shaped like gk_frames in the same
#    database (pgbench -M prepared, median of 500). Bound: ≤ 2 ×. Best of 3 runs each.
#    Beside it, no bound of its own: the same appends' CPU time in the service process and in
#    PostgreSQL's processes (/proc), against PostgreSQL's CPU time for a bare insert.
# 2. cursor: a device's `giftkeeper sync` after another device's one `add`, on a journal of
#    SMALL_FRAMES and of LARGE_FRAMES frames: the bytes on the wire (a counting relay,
#    scripts/bench/count-relay.py) and the rows the service's statements returned, blocks
#    they touched and statements they ran (pg_stat_statements, the serve role's), and the
#    frames each sync moved (it takes in the other's add with the sign-in and sign-out around
#    it, and sends its own sign-in and sign-out: every sync signs in). Bound: the large
#    journal's bytes and rows within 10 % of the small one's.
# 3. clone: `giftkeeper clone` of the large journal less that of the small one, frames a
#    second, best of 3. Bound: ≥ 100,000. CLONE_COMPARE=BINARY times another giftkeeper's
#    clones in the same runs, interleaved (an earlier commit's, say): a note, not a bound.
# 4. one journal: ten devices (cloned through either process) adding 10 presents each at
#    once in shells; then each syncs and exports. Bound: every export byte-identical, each
#    present there exactly once.
# 5. devices: JOURNALS journals × 4 simulated devices, spread over both processes, every
#    WebSocket open. Idle for 60 s: statements the serve role ran (bound: the same as in 60 s
#    before they connected, i.e. 0 a device) and the processes' resident memory before they
#    connected and after, per device (bound: ≤ 64 KiB). Then, with them connected, a shell's
#    change on device A (through the first process) timed until it shows on an open shell
#    on device B (through the second), and the simulated devices' own A→B (append sent →
#    cursor read back, RATE appends a second): p99 ≤ 50 ms each, and every device's frames
#    byte-identical to those appended.
set -euo pipefail
. "$(dirname "$0")/bench/add-script.sh"
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/release/giftkeeper}")
export GIFTKEEPER_SERVER_BINARY=$(realpath "${2:-.build/release/giftkeeper-server}")
tool=$(realpath "${3:-.build/release/giftkeeper-bench-sync}")
frame_bytes=${FRAME_BYTES:-320}
small_presents=${SMALL_PRESENTS:-1000}
large_presents=${LARGE_PRESENTS:-100000}
journals=${JOURNALS:-250}
rate=${RATE:-50}
only=${BENCH_ONLY:-change cursor clone journal devices}
wants() { [[ " $only " == *" $1 "* ]]; }
port_of() { sed 's|.*:||' <<<"$1"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-bench-sync.XXXXXX")
chmod 700 "$work"
socket=${BENCH_TMUX_SOCKET:-gk-bench-sync-$$}
pids=()
started=false
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if $started; then scripts/test-server.sh stop >/dev/null 2>&1 || true; fi
    [ -n "${BENCH_KEEP:-}" ] || rm -rf "$work" "$work-pgbouncer"
}
trap cleanup EXIT

start_pgbouncer() {  # PgBouncer (Debian's pgbouncer) in transaction pooling in front of the database
    command -v pgbouncer >/dev/null || { echo "bench-sync: BENCH_PGBOUNCER=1 needs pgbouncer (apt install pgbouncer)" >&2; exit 1; }
    local dir=$work-pgbouncer  # beside the work directory, which only its owner may enter
    mkdir -p "$dir"
    pgbouncer_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf '"giftkeeper_serve" ""\n' >"$dir/users"
    cat >"$dir/pgbouncer.ini" <<INI
[databases]
giftkeeper = host=127.0.0.1 port=$(port_of "${db%/*}") dbname=giftkeeper
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $pgbouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users
pool_mode = transaction
default_pool_size = 16
max_client_conn = 1000
logfile = $dir/log
pidfile = $dir/pid
INI
    [ "$(id -u)" = 0 ] && chown -R postgres "$dir"
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- pgbouncer -d "$dir/pgbouncer.ini"; else pgbouncer -d "$dir/pgbouncer.ini"; fi
    for _ in $(seq 50); do [ -s "$dir/pid" ] && break; sleep 0.1; done
    pids+=("$(cat "$dir/pid")")
}

# --- the servers -------------------------------------------------------------------------
# Directories of their own, never `make test`'s: the servers are started here and stopped
# at the end, so one that runs already (another bench) is not taken over.
export GIFTKEEPER_TEST_SERVER_DIR=${GIFTKEEPER_BENCH_SERVER_DIR:-/tmp/giftkeeper-bench-server-$(id -u)}
export GIFTKEEPER_TEST_POSTGRES_DIR=${GIFTKEEPER_BENCH_POSTGRES_DIR:-/tmp/giftkeeper-bench-postgres-$(id -u)}
if [ -f "$GIFTKEEPER_TEST_SERVER_DIR/pid" ] && kill -0 "$(cat "$GIFTKEEPER_TEST_SERVER_DIR/pid")" 2>/dev/null; then
    echo "bench-sync: a service already runs from $GIFTKEEPER_TEST_SERVER_DIR (another bench?); stop it first" >&2
    exit 1
fi
export GIFTKEEPER_TEST_POSTGRES_OPTIONS="-c shared_preload_libraries=pg_stat_statements"
export GIFTKEEPER_TEST_SERVER_ARGS="--max-frames-per-minute 100000000"
started=true
node1=$(scripts/test-server.sh start)
eval "$(scripts/test-server.sh env)"
db=$(scripts/test-server.sh db-url)
psql -qX "$db" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
serve_db=$(sed 's|//[^@]*@|//giftkeeper_serve@|' <<<"$db")
node2_db=("--database" "$serve_db")
if [ -n "${BENCH_PGBOUNCER:-}" ]; then  # the second process's pool through PgBouncer in transaction mode
    start_pgbouncer
    node2_db=("--database" "postgres://giftkeeper_serve@127.0.0.1:$pgbouncer_port/giftkeeper" "--listen-database" "$serve_db")
fi
: >"$work/node2.log"
# shellcheck disable=SC2086
setsid "$GIFTKEEPER_SERVER_BINARY" serve "${node2_db[@]}" \
    --listen 127.0.0.1:0 --tls-cert "$GIFTKEEPER_TEST_SERVICE_CERT_DIR/server.pem" \
    --tls-key "$GIFTKEEPER_TEST_SERVICE_CERT_DIR/server.key" $GIFTKEEPER_TEST_SERVER_ARGS \
    </dev/null >"$work/node2.log" 2>&1 &
node2_pid=$!
pids+=("$node2_pid")
for _ in $(seq 300); do grep -q 'serving https://' "$work/node2.log" && break; sleep 0.1; done
node2=$(sed -n 's|.*serving \(https://[^ ]*\).*|\1|p' "$work/node2.log" | head -1)
[ -n "$node2" ] || { cat "$work/node2.log" >&2; exit 1; }
node1_pid=$(cat "$GIFTKEEPER_TEST_SERVER_DIR/pid")
echo "services: $node1 and $node2 (TLS, one PostgreSQL); work in $work" >&2

password="bench-password-$$"
printf '%s\n' "$password" >"$work/password"
chmod 600 "$work/password"
now() { date +%s%N; }
min() { if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi; }
gk() {  # gk DEVICE ARGS… — the binary as device DEVICE (its own state directory)
    local device=$1
    shift
    XDG_STATE_HOME="$work/$device/state" "$binary" "$@"
}
device_dir() { mkdir -p -m 700 "$work/$1"; }
frames_of() { "$binary" verify --journal "$1" | sed -n 's/^OK: \([0-9]*\) frames.*/\1/p'; }
share() {  # share DEVICE SERVICE [PRESENTS] — a new journal on DEVICE shared through SERVICE, PRESENTS imported
    # and sent 5,000 at a time (a first sync sends every frame in one request, and the
    # service takes at most 16 MiB a request: about 35,000 frames)
    device_dir "$1"
    printf 'setup Bench --kdf interactive\n%s\n%s\nquit\n' "$password" "$password" | gk "$1" --journal "$work/$1/j.journal" >/dev/null
    gk "$1" sync --journal "$work/$1/j.journal" --remote "$2" --password-file "$work/password" >/dev/null 2>"$work/$1/shared"
    local done=0 step
    [ -n "${3:-}" ] && scripts/bench/make-document.sh 5000 >"$work/$1/doc.json"
    while [ "$done" -lt "${3:-0}" ]; do
        step=$((${3} - done < 5000 ? ${3} - done : 5000))
        python3 -c 'import json, sys
document = json.load(open(sys.argv[1]))
document["presents"] = document["presents"][:int(sys.argv[3])]
for present in document["presents"]: present["id"] = "p%d" % (int(present["id"][1:]) + int(sys.argv[2]))
json.dump(document, sys.stdout)' "$work/$1/doc.json" "$done" "$step" >"$work/$1/step.json"
        gk "$1" import --journal "$work/$1/j.journal" --password-file "$work/password" "$work/$1/step.json" >/dev/null 2>&1
        gk "$1" sync --journal "$work/$1/j.journal" --password-file "$work/password" >/dev/null 2>>"$work/$1/shared"
        done=$((done + step))
    done
}
code_for() {  # code_for DEVICE [PORT] — a one-time code of DEVICE's account, for the service process on PORT
    local code
    code=$(gk "$1" device add --journal "$work/$1/j.journal" --password-file "$work/password" 2>/dev/null)
    if [ -n "${2:-}" ]; then sed "s|:[0-9]*/?enrol|:$2/?enrol|" <<<"$code"; else echo "$code"; fi
}
clone_to() {  # clone_to DEVICE CODE — a new device, its journal cloned with CODE (the password seals its key)
    device_dir "$1"
    gk "$1" clone "$2" --journal "$work/$1/j.journal" --password-file "$work/password" >/dev/null
}
failures=0
verdict() {  # verdict OK LINE — prints the line, counts a missed bound
    if [ "$1" = 1 ]; then echo "$2   ok"; else echo "$2   MISSED"; failures=$((failures + 1)); fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { exit !(a <= b * r) }'; }
stat_statements() {  # calls rows blocks of the serve role's statements so far, and the pool's keep-alives (SELECT 1)
    psql -qXAt -F ' ' "$db" -c "SELECT coalesce(sum(calls) FILTER (WHERE NOT keepalive), 0),
        coalesce(sum(rows) FILTER (WHERE NOT keepalive), 0),
        coalesce(sum(shared_blks_hit + shared_blks_read) FILTER (WHERE NOT keepalive), 0),
        coalesce(sum(calls) FILTER (WHERE keepalive), 0)
        FROM (SELECT *, query = 'SELECT \$1' AS keepalive FROM pg_stat_statements) s
        WHERE userid = 'giftkeeper_serve'::regrole"
}
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
. scripts/bench/sync-phases.sh

# The thousand devices first: their memory is measured against processes that have not yet
# grown a heap of freed pages (a clone's) for the sockets to reuse.
wants devices && measure_devices
wants change && measure_change
wants cursor && measure_cursor
wants clone && measure_clone
wants journal && measure_one_journal
echo "$failures bound(s) missed"
[ "$failures" = 0 ]
