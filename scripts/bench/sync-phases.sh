# Sourced by scripts/bench-sync.sh: its five measurements, each printing its figures beside
# their bounds (verdict). Uses the script's variables (work, db, node1, node2, tool, binary…)
# and helpers (gk, share, code_for, clone_to, stat_statements…).

measure_change() {  # 1. an append through the service against a bare prepared INSERT … COMMIT
    psql -qX "$db" >/dev/null <<'SQL'
CREATE TABLE IF NOT EXISTS bench_bound (account_id uuid NOT NULL, journal_id bytea NOT NULL, sequence bigint NOT NULL,
    frame bytea NOT NULL, device_id bigint NOT NULL, received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, journal_id, sequence));
CREATE SEQUENCE IF NOT EXISTS bench_bound_sequence;
INSERT INTO gk_accounts (id) VALUES ('6d1f0a8e-0000-4000-8000-000000000002') ON CONFLICT DO NOTHING;
INSERT INTO gk_journals (account_id, id, header, head_sequence, head_hash) VALUES ('6d1f0a8e-0000-4000-8000-000000000002',
    '\x00112233445566778899aabbccddee02', '\x00', 0, '\x0000000000000000000000000000000000000000000000000000000000000000')
    ON CONFLICT DO NOTHING;
CREATE SEQUENCE IF NOT EXISTS bench_append_sequence;
GRANT USAGE ON SEQUENCE bench_append_sequence TO giftkeeper_serve;
SQL
    local frame_hex run best_service="" best_insert="" best_read="" service insert read postmaster cpu_before cpu_short
    local best_service_cpu="" best_database_cpu="" best_read_service_cpu="" best_read_database_cpu="" best_insert_cpu=""
    local best_statement="" zeros=0000000000000000000000000000000000000000000000000000000000000000
    postmaster=$(head -1 "$GIFTKEEPER_TEST_POSTGRES_DIR/data/postmaster.pid")
    frame_hex=$(od -An -tx1 -N"$frame_bytes" /dev/urandom | tr -d ' \n')
    cat >"$work/insert.sql" <<SQL
INSERT INTO bench_bound (account_id, journal_id, sequence, frame, device_id) VALUES ('6d1f0a8e-0000-4000-8000-000000000001',
    '\x00112233445566778899aabbccddeeff', nextval('bench_bound_sequence'), '\x$frame_hex', 1);
SQL
    # The statement an append runs, alone: gk_append as the serve role (row-level security on),
    # one frame of the same bytes after the head and a posted head of a device record's size,
    # with no service, TLS or HTTP in front (a bench account of its own; the head hash stays
    # zero, so each call's base is the one before's new head).
    cat >"$work/append.sql" <<SQL
SELECT r.* FROM (SELECT nextval('bench_append_sequence') - 1 AS h) s, LATERAL gk_append(
    '6d1f0a8e-0000-4000-8000-000000000002'::uuid, '\x00112233445566778899aabbccddee02'::bytea, s.h, '\x$zeros'::bytea,
    s.h + 1, '\x$zeros'::bytea, ARRAY['\x$frame_hex'::bytea], 1, '\x00112233445566778899aabbccddeeff'::bytea,
    '\x$zeros$zeros$zeros'::bytea, 1000000000) r;
SQL
    for run in 1 2 3; do
        "$tool" append-cost --service "$node1" --ca "$GIFTKEEPER_CA_FILE" --frame-bytes "$frame_bytes" --count 500 \
            --service-pid "$node1_pid" --postmaster-pid "$postmaster" >"$work/append-cost"
        service=$(figure append_p50_us)
        read=$(figure read_p50_us)
        best_read=$(min "$best_read" "$read")
        best_service_cpu=$(min "$best_service_cpu" "$(figure append_service_cpu_us)")
        best_database_cpu=$(min "$best_database_cpu" "$(figure append_database_cpu_us)")
        best_read_service_cpu=$(min "$best_read_service_cpu" "$(figure read_service_cpu_us)")
        best_read_database_cpu=$(min "$best_read_database_cpu" "$(figure read_database_cpu_us)")
        echo "change run $run: $(tr '\n' ' ' <"$work/append-cost")" >&2
        # The database's CPU an insert: that of a pgbench of 550 less that of one of 50 (the
        # backend's start and end, and the first inserts, in both), over the 500 between.
        cpu_before=$(cluster_cpu_us "$postmaster")
        bare_inserts 50
        cpu_short=$(($(cluster_cpu_us "$postmaster") - cpu_before))
        rm -f "$work"/pgbench.*
        cpu_before=$(cluster_cpu_us "$postmaster")
        bare_inserts 550 -l --log-prefix=pgbench
        best_insert_cpu=$(min "$best_insert_cpu" $((($(cluster_cpu_us "$postmaster") - cpu_before - cpu_short) / 500)))
        insert=$(tail -n +51 "$work"/pgbench.* | awk '{ print $3 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
        best_service=$(min "$best_service" "$service")
        best_insert=$(min "$best_insert" "$insert")
        rm -f "$work"/pgbench.*
        (cd "$work" && pgbench -n -M prepared -c 1 -t 550 -f append.sql -l --log-prefix=pgbench \
            -h 127.0.0.1 -p "$(port_of "${db%/*}")" -U giftkeeper_serve giftkeeper >"$work/append-statement.log" 2>&1) || { cat "$work/append-statement.log" >&2; exit 1; }
        best_statement=$(min "$best_statement" "$(tail -n +51 "$work"/pgbench.* | awk '{ print $3 }' | sort -n |
            awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')")
    done
    local x server_side
    x=$(ratio "$best_service" "$best_insert")
    verdict "$(within "$best_service" "$best_insert" 2 && echo 1)" \
        "change    an append of $frame_bytes bytes through the service $best_service µs (median, TLS, warm; a cursor read finding nothing $best_read µs) vs a bare prepared INSERT+COMMIT $best_insert µs = ${x} × (bound ≤ 2 ×)"
    echo "change    the append's statement alone (gk_append as the serve role, no service in front) $best_statement µs = $(ratio "$best_statement" "$best_insert") × the bare insert (no bound: what any transport adds to)"
    # The same change's cost on the server side, in CPU time (no bound of its own: the bound
    # above is the round trip's): the service process's and the database's, against the
    # database's CPU for a bare insert, best of the same 3 runs.
    server_side=$((best_service_cpu + best_database_cpu))
    echo "change    server CPU an append: service $best_service_cpu µs + database $best_database_cpu µs = $server_side µs vs a bare insert's database CPU $best_insert_cpu µs = $(ratio "$server_side" "$best_insert_cpu") × (within 2 ×: $(within "$server_side" "$best_insert_cpu" 2 && echo yes || echo no); database alone $(ratio "$best_database_cpu" "$best_insert_cpu") ×); a cursor read finding nothing: service $best_read_service_cpu µs, database $best_read_database_cpu µs"
}

bare_inserts() {  # bare_inserts COUNT [PGBENCH OPTIONS…] — COUNT prepared INSERT+COMMITs by pgbench, one connection
    local count=$1
    shift
    (cd "$work" && pgbench -n -M prepared -c 1 -t "$count" -f insert.sql "$@" \
        -h 127.0.0.1 -p "$(port_of "${db%/*}")" -U giftkeeper giftkeeper >/dev/null 2>&1)
}

figure() {  # figure NAME — NAME's whole microseconds in append-cost's output
    sed -n "s/^$1=\([0-9]*\).*/\1/p" "$work/append-cost"
}

cluster_cpu_us() {  # cluster_cpu_us POSTMASTER — CPU µs of PostgreSQL's processes: the postmaster with the children it reaped, and those alive
    local pid children
    children=$(cat /proc/"$1"/task/*/children 2>/dev/null)
    # shellcheck disable=SC2086
    for pid in "$1" $children; do
        awk -v self="$([ "$pid" = "$1" ] && echo 1)" '{ sub(/.*\) /, ""); t = $12 + $13; if (self) t += $14 + $15; print t }' "/proc/$pid/stat" 2>/dev/null
    done | awk -v hz="$(getconf CLK_TCK)" '{ s += $1 } END { printf "%.0f", s * 1e6 / hz }'
}

make_journals() {  # once: a journal of SMALL_PRESENTS and one of LARGE_PRESENTS imported, shared through the first process
    [ -f "$work/large/shared" ] && return
    share small "$node1" "$small_presents"
    share large "$node1" "$large_presents"
    small_frames=$(frames_of "$work/small/j.journal")
    large_frames=$(frames_of "$work/large/j.journal")
}

measure_cursor() {  # 2. bytes and rows per sync, at SMALL_FRAMES and at LARGE_FRAMES
    make_journals
    local relay_port size k before after bytes_before bytes_after
    python3 scripts/bench/count-relay.py 0 "$(port_of "$node1")" "$work/relay-count" >"$work/relay-port" &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$work/relay-port" ] && break; sleep 0.05; done
    relay_port=$(cat "$work/relay-port")
    declare -A bytes rows blocks calls took sent
    local a_frames b_frames
    for size in small large; do
        clone_to "$size-b" "$(code_for "$size" "$relay_port")"
        gk "$size-b" sync --journal "$work/$size-b/j.journal" --password-file "$work/password" >/dev/null 2>&1
        bytes[$size]=0 rows[$size]=0 blocks[$size]=0 calls[$size]=0 took[$size]=0 sent[$size]=0
        for k in 1 2 3 4 5; do
            gk "$size" add Kid "Sync $k" --journal "$work/$size/j.journal" --password-file "$work/password" >/dev/null 2>&1
            # What the sync has to move: the frames A holds that B does not (A's add, with
            # the sign-in and sign-out around it), and B's own (every sync signs in and out).
            a_frames=$(frames_of "$work/$size/j.journal")
            b_frames=$(frames_of "$work/$size-b/j.journal")
            read -r bytes_before <<<"$(awk '{ print $1 + $2 }' "$work/relay-count")"
            read -r -a before <<<"$(stat_statements)"
            gk "$size-b" sync --journal "$work/$size-b/j.journal" --password-file "$work/password" >"$work/$size-b/sync-$k" 2>&1
            sleep 0.2
            read -r -a after <<<"$(stat_statements)"
            read -r bytes_after <<<"$(awk '{ print $1 + $2 }' "$work/relay-count")"
            bytes[$size]=$((bytes[$size] + bytes_after - bytes_before))
            calls[$size]=$((calls[$size] + after[0] - before[0]))
            rows[$size]=$((rows[$size] + after[1] - before[1]))
            blocks[$size]=$((blocks[$size] + after[2] - before[2]))
            took[$size]=$((took[$size] + a_frames - b_frames))
            sent[$size]=$((sent[$size] + $(frames_of "$work/$size-b/j.journal") - a_frames))
        done
        # (every sync signs in: the second device holds the first's frames and its own sign-ins)
        [ "$(frames_of "$work/$size-b/j.journal")" -ge "$(frames_of "$work/$size/j.journal")" ] ||
            echo "cursor: the $size journal's second device is not at the first's frames" >&2
    done
    local ok=1
    within "${bytes[large]}" "${bytes[small]}" 1.1 && within "${bytes[small]}" "${bytes[large]}" 1.1 || ok=0
    within "${rows[large]}" "${rows[small]}" 1.1 && within "${rows[small]}" "${rows[large]}" 1.1 || ok=0
    verdict "$ok" "cursor    a sync after one change, $small_frames frames: $((bytes[small] / 5)) bytes on the wire, $((rows[small] / 5)) rows returned, $((blocks[small] / 5)) blocks, $((calls[small] / 5)) statements; $large_frames frames: $((bytes[large] / 5)) bytes, $((rows[large] / 5)) rows, $((blocks[large] / 5)) blocks, $((calls[large] / 5)) statements; each sync took in $(ratio "${took[small]}" 5) and $(ratio "${took[large]}" 5) frames and sent its own $(ratio "${sent[small]}" 5) and $(ratio "${sent[large]}" 5) (its sign-in and sign-out) (bound: bytes and rows within 10 %)"
}

measure_clone() {  # 3. clone speed; with CLONE_COMPARE=BINARY, that binary's clones too, interleaved (a note)
    make_journals
    local run code start took size which cpu TIMEFORMAT="%U %S" main=$binary
    declare -A best=() cpus=()
    for run in 1 2 3; do
        for which in main ${CLONE_COMPARE:+compare}; do
            for size in large small; do
                code=$(code_for "$size")
                [ "$which" = main ] || binary=$(realpath "$CLONE_COMPARE")
                start=$(now)
                { time clone_to "clone-$which-$size-$run" "$code"; } 2>"$work/clone-cpu"
                took=$(($(now) - start))
                binary=$main
                if [ -z "${best[$which-$size]:-}" ] || [ "$took" -lt "${best[$which-$size]}" ]; then
                    best[$which-$size]=$took
                    cpus[$which-$size]=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$work/clone-cpu")
                fi
            done
        done
    done
    clone_line() {  # clone_line WHICH — its figures
        local speed=$(((large_frames - small_frames) * 1000000000 / (best[$1-large] - best[$1-small])))
        echo "$speed $large_frames frames in $((best[$1-large] / 1000000)) ms ($small_frames in $((best[$1-small] / 1000000)) ms): $speed frames/s; the large clone's CPU ${cpus[$1-large]} ms"
    }
    local line
    line=$(clone_line main)
    verdict "$([ "${line%% *}" -ge 100000 ] && echo 1)" "clone     ${line#* } (bound ≥ 100,000)"
    [ -z "${CLONE_COMPARE:-}" ] || { line=$(clone_line compare); echo "          compared, in the same runs, $CLONE_COMPARE: ${line#* }"; }
}

measure_one_journal() {  # 4. ten devices adding to one journal at once
    local d i status=0 saved=0 start shells=()
    share one-1 "$node1"
    for d in $(seq 2 10); do
        if ((d % 2 == 0)); then clone_to "one-$d" "$(code_for one-1 "$(port_of "$node2")")"; else clone_to "one-$d" "$(code_for one-1)"; fi
    done
    start=$(now)
    for d in $(seq 1 10); do
        {
            printf 'login\n%s\n' "$password"
            for i in $(seq 1 10); do printf 'add Kid "Device %d present %d"\n' "$d" "$i"; done
            printf 'quit\n'
        } | gk "one-$d" --journal "$work/one-$d/j.journal" >"$work/one-$d/out" 2>"$work/one-$d/err" &
        shells+=($!)
    done
    local code
    for d in $(seq 1 10); do
        code=0
        wait "${shells[d - 1]}" || code=$?
        [ "$code" = 0 ] && continue
        status=$((status + 1))
        echo "journal: device $d's shell ended with status $code: $(grep -a 'error' "$work/one-$d/err" | tail -3)" >&2
    done
    local took=$((($(now) - start) / 1000000))
    for d in $(seq 1 10); do saved=$((saved + $(grep -c '^Saved p' "$work/one-$d/out" || true))); done
    for pass in 1 2; do
        for d in $(seq 1 10); do gk "one-$d" sync --journal "$work/one-$d/j.journal" --password-file "$work/password" >/dev/null 2>&1 || true; done
    done
    local same=0
    for d in $(seq 1 10); do
        gk "one-$d" export --journal "$work/one-$d/j.journal" --password-file "$work/password" >"$work/one-$d/export.json" 2>/dev/null
        cmp -s "$work/one-1/export.json" "$work/one-$d/export.json" && same=$((same + 1))
    done
    local counted
    counted=$(python3 -c '
import json, sys, collections
titles = collections.Counter(p["title"] for p in json.load(open(sys.argv[1]))["presents"] if p["title"].startswith("Device "))
wanted = {f"Device {d} present {i}" for d in range(1, 11) for i in range(1, 11)}
print(sum(1 for t in wanted if titles[t] == 1), sum(1 for t, n in titles.items() if n > 1 or t not in wanted))' "$work/one-1/export.json")
    local once extra
    read -r once extra <<<"$counted"
    verdict "$([ "$saved" = 100 ] && [ "$same" = 10 ] && [ "$once" = 100 ] && [ "$extra" = 0 ] && echo 1)" \
        "journal   10 devices × 10 adds at once on one journal ($took ms): $saved saved; $once of 100 presents once, $extra doubled or foreign; $same of 10 exports byte-identical (bound: 100, 100, 0, 10)"
    # Not a bound of issue 27's, but what a person would see: the shells' errors (above).
    [ "$status" = 0 ] || echo "          note: $status of 10 shells ended with an error status (their messages above)"
}

measure_devices() {  # 5. a thousand devices on two service processes: idle cost, A→B, nothing lost
    share live-a "$node1"
    clone_to live-b "$(code_for live-a "$(port_of "$node2")")"
    local calls2 calls3 alive2 alive3 rss0 rss1 line
    echo "devices: $((journals * 4)) connecting" >&2
    rss0=$(($(rss_kib "$node1_pid") + $(rss_kib "$node2_pid")))
    coproc SIMULATED {
        "$tool" devices --service "$node1" --service "$node2" --ca "$GIFTKEEPER_CA_FILE" --journals "$journals" \
            --rate "$rate" --frame-bytes "$frame_bytes" --checkpoints 2>"$work/simulated.err"
    }
    # Copies of its pipes and pid: bash drops the coprocess's own when it ends.
    local simulated_pid=$SIMULATED_PID simulated_out simulated_in
    exec {simulated_out}<&"${SIMULATED[0]}" {simulated_in}>&"${SIMULATED[1]}"
    declare -A figure
    while read -r line <&"$simulated_out"; do
        case $line in
        "pause signed-in") echo >&"$simulated_in" ;;
        "pause connected")
            sleep 5  # settled
            rss1=$(($(rss_kib "$node1_pid") + $(rss_kib "$node2_pid")))
            read -r calls2 _ _ alive2 <<<"$(stat_statements)"
            sleep 60
            read -r calls3 _ _ alive3 <<<"$(stat_statements)"
            start_live_shells
            echo >&"$simulated_in"
            live_shell_trials 40 >"$work/shell-latencies"
            ;;
        *=*) figure[${line%%=*}]=${line#*=} ;;
        esac
    done
    exec {simulated_out}<&- {simulated_in}>&-
    wait "$simulated_pid" || { cat "$work/simulated.err" >&2; echo "devices: giftkeeper-bench-sync failed" >&2; failures=$((failures + 1)); return; }
    stop_live_shells
    local devices=${figure[devices]} per_device idle_calls=$((calls3 - calls2))
    per_device=$(((rss1 - rss0) / devices))
    verdict "$([ "$idle_calls" -le 0 ] && echo 1)" \
        "idle      $devices devices connected for 60 s: the service ran $idle_calls statements for them (and $((alive3 - alive2)) keep-alive SELECT 1 of its pools' idle connections, every 30 s each whatever the devices) (bound: 0 a device)"
    verdict "$([ "$per_device" -le 64 ] && echo 1)" \
        "memory    the two service processes: $((rss0 / 1024)) MiB before, $((rss1 / 1024)) MiB with $devices devices connected = $per_device KiB a device (bound ≤ 64 KiB)"
    mapfile -t sorted < <(sort -n "$work/shell-latencies")
    local n=${#sorted[@]} p99
    p99=$((n * 99 / 100)); ((p99 < n)) || p99=$((n - 1))
    verdict "$([ "$n" -ge 40 ] && [ "${sorted[p99]}" -le 50000 ] && echo 1)" \
        "shell     a shell's add on A (first process) shown on B's open shell (second process), $devices devices connected: p50 $(ms "${sorted[n / 2]}") ms, p99 $(ms "${sorted[p99]}") ms over $n of 40 (bound p99 ≤ 50 ms)"
    verdict "$(within "${figure[live_p99_ms]}" 50 1 && echo 1)" \
        "live      simulated A→B (append sent → cursor read back), ${figure[appends]} appends at $rate/s, $devices devices: p50 ${figure[live_p50_ms]} ms, p99 ${figure[live_p99_ms]} ms, max ${figure[live_max_ms]} ms over ${figure[live_samples]} of ${figure[live_expected]} (bound p99 ≤ 50 ms)"
    verdict "$([ "${figure[devices_differing]}" = 0 ] && [ "${figure[read_failures]}" = 0 ] && [ "${figure[cross_node_samples]}" -gt 0 ] && echo 1)" \
        "fan-out   ${figure[cross_node_samples]} changes reached a device on the other process (p99 ${figure[cross_node_p99_ms]} ms); ${figure[devices_differing]} of $devices devices' frames differ from those appended, ${figure[read_failures]} reads failed, ${figure[conflicts]} appends conflicted, ${figure[sockets_opened]} sockets opened (bound: 0 differ, 0 failed)"
}

ms() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

start_live_shells() {  # device B's shell under tmux, its screen in a file; device A's shell reading a pipe
    tmux -L "$socket" -f /dev/null new-session -d -x 200 -y 50 \
        "env XDG_STATE_HOME=$work/live-b/state GIFTKEEPER_CA_FILE=$GIFTKEEPER_CA_FILE $binary --journal $work/live-b/j.journal"
    tmux -L "$socket" pipe-pane -o "cat >> $work/live-b/screen"
    for _ in $(seq 100); do grep -q "assword" "$work/live-b/screen" 2>/dev/null && break; sleep 0.05; done
    tmux -L "$socket" send-keys "$password" Enter
    for _ in $(seq 200); do grep -q "Signed in" "$work/live-b/screen" 2>/dev/null && break; sleep 0.05; done
    mkfifo "$work/live-a/pipe"
    gk live-a --journal "$work/live-a/j.journal" <"$work/live-a/pipe" >/dev/null 2>&1 &
    shell_a=$!
    exec 7>"$work/live-a/pipe"
    printf 'login\n%s\n' "$password" >&7
    sleep 2  # both signed in, B's socket open
}

live_trial_line() { printf 'add Kid "%s"\n' "$1"; }  # live_trial_line TITLE TRIAL — the line a trial writes to A

live_shell_trials() {  # live_shell_trials N [SCREEN [TITLES]] — N lines on A (live_trial_line), each timed until SCREEN (B's) shows the title quoted (µs, a line each); TITLES a printf format of the trial's number
    # The screen is read through fd 8, which stays where the last read ended; the waits are
    # read timeouts on fd 9 (a pipe nobody writes), so the loop forks nothing.
    [ -p "$work/never" ] || mkfifo "$work/never"
    exec 8<"${2:-$work/live-b/screen}" 9<>"$work/never"
    local trial title seen chunk t0
    for ((trial = 0; trial < $1; trial++)); do
        printf -v title "${3:-Trial %03d}" "$trial"
        read -r -d '' _ <&8 || true
        seen=""
        t0=${EPOCHREALTIME/./}
        live_trial_line "$title" "$trial" >&7
        until [[ $seen == *"\"$title\""* ]]; do
            chunk=""
            read -r -d '' chunk <&8 || true
            seen+=$chunk
            ((${EPOCHREALTIME/./} - t0 > 5000000)) && { echo "live: $title never showed on B" >&2; break; }
            read -r -t 0.0005 -u 9 _ || true
        done
        [[ $seen == *"\"$title\""* ]] && echo $((${EPOCHREALTIME/./} - t0))
        read -r -t 0.1 -u 9 _ || true
    done
    exec 8<&- 9<&-
}

stop_live_shells() {
    printf 'quit\n' >&7
    exec 7>&-
    wait "$shell_a" || true
    tmux -L "$socket" kill-server 2>/dev/null || true
}
