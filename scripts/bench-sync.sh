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
#    frames per second. Target: at least 50,000. (The documents: scripts/bench/make-document.sh.)
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
frame_hex=$(od -An -tx1 -N300 /dev/urandom | tr -d ' \n')
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
sent=$(((best_remote - best_local) / count))
insert=$((best_bound / count))
ratio=$((sent * 100 / insert))
echo "append   add line with a server $((best_remote / count)) µs, without $((best_local / count)) µs:" \
    "sending $sent µs vs INSERT+COMMIT $insert µs = $((ratio / 100)).$(printf %02d $((ratio % 100)))x (target <= 1.5x)"
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
# B's screen is read through fd 8, which stays where the last read ended; the waits are
# read timeouts on fd 9 (a pipe nobody writes), so the loop forks nothing.
mkfifo "$work/never"
exec 8<"$work/b/screen" 9<>"$work/never"
pause() { read -r -t "$1" -u 9 _ || true; }
sleep 1  # both signed in and settled
latencies=()
for ((trial = 0; trial < 60; trial++)); do
    printf -v title 'Trial %03d' "$trial"
    read -r -d '' _ <&8 || true  # what B showed so far
    seen=""
    t0=${EPOCHREALTIME/./}
    printf 'add Kid "%s"\n' "$title" >&7
    until [[ $seen == *"\"$title\""* ]]; do
        chunk=""
        read -r -d '' chunk <&8 || true
        seen+=$chunk
        if ((${EPOCHREALTIME/./} - t0 > 5000000)); then
            echo "live: $title never showed on the other device" >&2
            exit 1
        fi
        pause 0.0005
    done
    latencies+=($((${EPOCHREALTIME/./} - t0)))
    pause 0.1
done
exec 8<&- 9<&-
mapfile -t sorted < <(printf '%s\n' "${latencies[@]}" | sort -n)
n=${#sorted[@]}
p99=$((n * 99 / 100)); ((p99 < n)) || p99=$((n - 1))
ms() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
echo "live     a change on A shown on B: p50 $(ms "${sorted[n / 2]}") ms, p99 $(ms "${sorted[p99]}") ms," \
    "max $(ms "${sorted[n - 1]}") ms over $n (target p99 <= 50 ms)"
printf 'quit\n' >&7
exec 7>&-
wait "$shell_a" || true
tmux -L "$socket" kill-server 2>/dev/null || true
fi

# --- 3. clone --------------------------------------------------------------------------
if wants clone; then
pushed() {  # pushed NAME PRESENTS → the URL of a journal of that many presents on the server
    local place="$work/$1"
    mkdir -m 700 "$place"
    printf 'setup Bench --kdf interactive\n%s\n%s\nquit\n' "$password" "$password" |
        XDG_STATE_HOME="$place/state" "$binary" --journal "$place/j.journal" >/dev/null 2>&1
    scripts/bench/make-document.sh "$2" >"$place/doc.json"
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
echo "clone    $big_frames frames in $((best_big / 1000)) ms ($small_frames in $((best_small / 1000)) ms):" \
    "$(((big_frames - small_frames) * 1000000 / (best_big - best_small))) frames/s (target >= 50,000)"
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
