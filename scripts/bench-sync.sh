#!/usr/bin/env bash
# Devices as a user meets them (issue 11, SPEC §12): four figures through the built binary,
# whole processes, against a PostgreSQL server on loopback (the test server unless
# GIFTKEEPER_BENCH_POSTGRES_URL names one), each against a bound or target measured in the
# same run:
#
#   scripts/bench-sync.sh [BINARY] [N] [CLONE_FRAMES] [DEVICES]
#       (defaults: .build/release/giftkeeper, 200, 20000, 50)
#
# 1. append: a script of N `add` lines in a shell with a server, less the same script
#    without one, per line: what sending a change to the server costs. Bound: one psql
#    connection running N times `BEGIN; INSERT <journal id, position, 300 bytes>; COMMIT`
#    into a table shaped like giftkeeper_frames. (T(N+1) - T(1)) / N for each; the
#    minimum of 5 interleaved runs. Target: at most 1.5 x the bound.
# 2. live: a shell signed in on device B (under tmux, its own socket), device A a shell
#    reading a pipe; an `add` written to A's pipe at t0, its line `↓ … was added elsewhere`
#    read from B's terminal (tmux pipe-pane into a file, read every 0.5 ms) at t1. 60
#    trials; p50 and p99 of t1 - t0. Target: p99 at most 50 ms.
# 3. clone: `giftkeeper clone` of a journal of CLONE_FRAMES frames (built by `import` of an
#    ordinary export document, then pushed) less the clone of a journal of 100 presents:
#    frames per second. Target: at least 50,000.
# 4. devices: DEVICES journals pushed, then DEVICES shells at once (one per journal, 10
#    `add` lines each, all on one server); then every device's journal and the server's
#    copy are compared (frame counts, and `sync` finds nothing to do). Target: nothing lost.
set -euo pipefail
. "$(dirname "$0")/bench/add-script.sh"
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/release/giftkeeper}")
count=${2:-200}
clone_frames=${3:-20000}
devices=${4:-50}
runs=5
work=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-bench-sync.XXXXXX")
chmod 700 "$work"
socket="gk-bench-sync-$$"
started_server=false
if [ -n "${GIFTKEEPER_BENCH_POSTGRES_URL:-}" ]; then
    url=$GIFTKEEPER_BENCH_POSTGRES_URL
elif running=$(scripts/test-postgres.sh url 2>/dev/null) && psql -q "$running" -c 'SELECT 1' >/dev/null 2>&1; then
    url=$running  # the test server someone started: used, and left running
else
    url=$(scripts/test-postgres.sh start)
    started_server=true
fi
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    rm -rf "$work"
    if $started_server; then scripts/test-postgres.sh stop; fi
}
trap cleanup EXIT

password="bench-password-$$"
printf '%s\n' "$password" >"$work/password"
chmod 600 "$work/password"
now() { date +%s%N; }
min() { if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi; }
frames_of() { "$binary" verify --journal "$1" | sed -n 's/^OK: \([0-9]*\) frames.*/\1/p'; }

only=${BENCH_ONLY:-append live clone devices}
wants() { [[ " $only " == *" $1 "* ]]; }

# --- 1. append -----------------------------------------------------------------------
if wants append; then
add_script $((count + 1)) "$password" >"$work/adds.txt"
add_script 1 "$password" >"$work/one.txt"

shell_run() {  # shell_run SCRIPT [--remote URL] → microseconds of one whole run, fresh journal and state
    local script=$1
    shift
    local place="$work/run-$RANDOM$RANDOM"
    mkdir -m 700 "$place"
    local start end
    start=$(now)
    XDG_STATE_HOME="$place/state" "$binary" --journal "$place/j.journal" "$@" <"$script" >/dev/null 2>"$place/err" ||
        { cat "$place/err" >&2; exit 1; }
    end=$(now)
    rm -rf "$place"
    echo $(((end - start) / 1000))
}

psql -q "$url" -c "CREATE TABLE IF NOT EXISTS bench_bound (journal_id bytea, sequence bigint, frame bytea,
    received_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (journal_id, sequence))" >/dev/null
frame_hex=$(python3 -c 'import os; print(os.urandom(300).hex())')
inserts() {  # inserts N → N transactions of one 300-byte insert each
    for ((i = 1; i <= $1; i++)); do
        printf "BEGIN; INSERT INTO bench_bound (journal_id, sequence, frame) VALUES ('\\\\x%032x', %d, '\\\\x%s'); COMMIT;\n" \
            "$RANDOM" "$i" "$frame_hex"
    done
}
inserts $((count + 1)) >"$work/inserts.sql"
inserts 1 >"$work/insert.sql"
psql_run() {
    local start end
    start=$(now)
    psql -q "$url" -f "$1" >/dev/null
    end=$(now)
    psql -q "$url" -c "TRUNCATE bench_bound" >/dev/null
    echo $(((end - start) / 1000))
}

best_remote=""; best_local=""; best_bound=""
for ((run = 1; run <= runs; run++)); do
    remote=$(($(shell_run "$work/adds.txt" --remote "$url") - $(shell_run "$work/one.txt" --remote "$url")))
    local_only=$(($(shell_run "$work/adds.txt") - $(shell_run "$work/one.txt")))
    bound=$(($(psql_run "$work/inserts.sql") - $(psql_run "$work/insert.sql")))
    best_remote=$(min "$best_remote" "$remote")
    best_local=$(min "$best_local" "$local_only")
    best_bound=$(min "$best_bound" "$bound")
done
python3 - "$count" "$best_remote" "$best_local" "$best_bound" <<'PY'
import sys
n, remote, local, bound = int(sys.argv[1]), *map(int, sys.argv[2:])
sent = (remote - local) / n
insert = bound / n
print(f"append   add line with a server {remote / n:8.0f} µs, without {local / n:6.0f} µs: sending {sent:6.0f} µs"
      f" vs INSERT+COMMIT {insert:6.0f} µs = {sent / insert:4.2f}x (target <= 1.5x)")
PY
fi

# --- 2. live ---------------------------------------------------------------------------
if wants live; then
mkdir -m 700 "$work/a" "$work/b"
printf 'setup Bench --kdf interactive\n%s\n%s\nadd Dad "Lego set"\nquit\n' "$password" "$password" |
    XDG_STATE_HOME="$work/a/state" "$binary" --journal "$work/a/j.journal" --remote "$url" >/dev/null 2>"$work/a/shared"
copy=$(sed -n 's/^Shared through \([^ ]*\)\. .*/\1/p' "$work/a/shared")
XDG_STATE_HOME="$work/b/state" "$binary" clone "$copy" --journal "$work/b/j.journal" >/dev/null
tmux -L "$socket" -f /dev/null new-session -d -x 200 -y 50 \
    "env XDG_STATE_HOME=$work/b/state $binary --journal $work/b/j.journal"
tmux -L "$socket" pipe-pane -o "cat >> $work/b/screen"
for _ in $(seq 100); do grep -q "assword" "$work/b/screen" 2>/dev/null && break; sleep 0.05; done
tmux -L "$socket" send-keys "$password" Enter
for _ in $(seq 200); do grep -q "Signed in" "$work/b/screen" 2>/dev/null && break; sleep 0.05; done
mkfifo "$work/a/pipe"
XDG_STATE_HOME="$work/a/state" "$binary" --journal "$work/a/j.journal" <"$work/a/pipe" >/dev/null 2>&1 &
shell_a=$!
exec 7>"$work/a/pipe"
printf 'login\n%s\n' "$password" >&7
python3 - "$work/b/screen" <<'PY'
import os, sys, time
screen = sys.argv[1]
pipe = os.fdopen(7, "w", buffering=1)
time.sleep(1.0)  # both signed in and settled
latencies = []
for trial in range(60):
    title = f"Trial {trial:03d}"
    marker = f'"{title}"'.encode()
    start_size = os.path.getsize(screen)
    t0 = time.perf_counter()
    pipe.write(f'add Kid "{title}"\n')
    while True:
        with open(screen, "rb") as f:
            f.seek(start_size)
            if marker in f.read():
                break
        if time.perf_counter() - t0 > 5:
            sys.exit(f"live: {title} never showed on the other device")
        time.sleep(0.0005)
    latencies.append((time.perf_counter() - t0) * 1000)
    time.sleep(0.1)
latencies.sort()
p50 = latencies[len(latencies) // 2]
p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
print(f"live     a change on A shown on B: p50 {p50:5.1f} ms, p99 {p99:5.1f} ms, max {latencies[-1]:5.1f} ms "
      f"over {len(latencies)} (target p99 <= 50 ms)")
PY
printf 'quit\n' >&7
exec 7>&-
wait "$shell_a" || true
tmux -L "$socket" kill-server 2>/dev/null || true
fi

# --- 3. clone --------------------------------------------------------------------------
if wants clone; then
document() {  # document N → an export v1 document of N presents with ordinary text
    python3 - "$1" <<'PY'
import json, sys
n = int(sys.argv[1])
people = ["Mum", "Dad", "Gran", "Grandad", "Zoë", "Sam", "Aunt Ruth", "Uncle Jo", "Lena", "Tom", "Priya", "Noah"]
things = ["Blue wool scarf", "Hardback cookbook", "Board game for four", "Ceramic teapot", "Kite with a long tail",
          "Leather notebook", "Jigsaw of the coast", "Tea sampler box", "Garden gloves", "Bird feeder"]
presents = [{
    "id": f"p{i}", "recipient": people[i % len(people)], "title": f"{things[i % len(things)]} {i}",
    "notes": "Wrapped in blue paper, bought at the market on a Saturday morning; keep the receipt in the drawer.",
    "occasion": "Christmas", "price": f"{i % 90}.50", "status": "idea",
    "createdAt": "2026-11-01T08:00:00.000Z", "updatedAt": "2026-11-01T08:00:00.000Z"} for i in range(1, n + 1)]
print(json.dumps({"format": "giftkeeper.export.v1", "account": {"name": "Bench"}, "presents": presents}))
PY
}
pushed() {  # pushed NAME PRESENTS → the URL of a journal of that many presents on the server
    local place="$work/$1"
    mkdir -m 700 "$place"
    printf 'setup Bench --kdf interactive\n%s\n%s\nquit\n' "$password" "$password" |
        XDG_STATE_HOME="$place/state" "$binary" --journal "$place/j.journal" >/dev/null 2>&1
    document "$2" >"$place/doc.json"
    XDG_STATE_HOME="$place/state" "$binary" import --journal "$place/j.journal" --password-file "$work/password" \
        "$place/doc.json" >/dev/null 2>&1
    XDG_STATE_HOME="$place/state" "$binary" sync --journal "$place/j.journal" --remote "$url" 2>/dev/null |
        sed -n 's/^Shared through \([^ ]*\)\. .*/\1/p'
}
big=$(pushed big "$clone_frames")
small=$(pushed small 100)
clone_run() {
    local place="$work/clone-$RANDOM$RANDOM"
    mkdir -m 700 "$place"
    local start end
    start=$(now)
    XDG_STATE_HOME="$place/state" "$binary" clone "$1" --journal "$place/j.journal" >/dev/null
    end=$(now)
    frames_of "$place/j.journal" >"$work/cloned-frames"
    rm -rf "$place"
    echo $(((end - start) / 1000))
}
best_big=""; best_small=""
for ((run = 1; run <= runs; run++)); do
    best_big=$(min "$best_big" "$(clone_run "$big")")
    big_frames=$(cat "$work/cloned-frames")
    best_small=$(min "$best_small" "$(clone_run "$small")")
    small_frames=$(cat "$work/cloned-frames")
done
python3 - "$big_frames" "$small_frames" "$best_big" "$best_small" <<'PY'
import sys
big, small, t_big, t_small = map(int, sys.argv[1:])
rate = (big - small) / ((t_big - t_small) / 1e6)
print(f"clone    {big} frames in {t_big / 1000:.0f} ms ({small} in {t_small / 1000:.0f} ms): "
      f"{rate:,.0f} frames/s (target >= 50,000)")
PY
fi

# --- 4. devices ------------------------------------------------------------------------
if wants devices; then
device_adds() {  # the script each device runs: sign in, 10 adds, quit
    printf 'login\n%s\n' "$password"
    for ((i = 1; i <= 10; i++)); do printf 'add Kid "Device present %d"\n' "$i"; done
    printf 'quit\n'
}
device_adds >"$work/device.txt"
for ((d = 1; d <= devices; d++)); do
    mkdir -m 700 "$work/d$d"
    printf 'setup Bench --kdf interactive\n%s\n%s\nquit\n' "$password" "$password" |
        XDG_STATE_HOME="$work/d$d/state" "$binary" --journal "$work/d$d/j.journal" --remote "$url" >/dev/null 2>&1
done
start=$(now)
pids=()
for ((d = 1; d <= devices; d++)); do
    XDG_STATE_HOME="$work/d$d/state" "$binary" --journal "$work/d$d/j.journal" <"$work/device.txt" \
        >"$work/d$d/out" 2>"$work/d$d/err" &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
end=$(now)
lost=0
for ((d = 1; d <= devices; d++)); do
    saved=$(grep -c '^Saved p' "$work/d$d/out" || true)
    local_frames=$(frames_of "$work/d$d/j.journal")
    up=$(XDG_STATE_HOME="$work/d$d/state" "$binary" sync --journal "$work/d$d/j.journal" 2>&1 || true)
    id=$(head -c 28 "$work/d$d/j.journal" | tail -c 16 | od -An -tx1 | tr -d ' \n')
    server_frames=$(psql -At "$url" -c "SELECT count(*) FROM giftkeeper_frames WHERE journal_id = '\\x$id'")
    if [ "$saved" != 10 ] || [ "$local_frames" != "$server_frames" ] || ! grep -q '^Up to date' <<<"$up"; then
        lost=$((lost + 1))
        echo "devices: device $d saved $saved of 10, $local_frames frames here, $server_frames on the server: $up" >&2
    fi
done
echo "devices  $devices devices, 10 adds each, at once on one server: $(((end - start) / 1000000)) ms;" \
    "$failed processes failed, $lost journals differ from the server (target: 0 and 0)"
fi
