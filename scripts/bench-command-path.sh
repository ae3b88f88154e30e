#!/usr/bin/env bash
# The command path as a user meets it: a script of N `add` lines through the built binary,
# whole process, against a bare fsync'd 300-byte append measured in the same run.
#
#   scripts/bench-command-path.sh [BINARY] [N]      (defaults: .build/release/giftkeeper, 1000)
#   BENCH_TITLES=person|same chooses the titles (scripts/bench/add-script.sh; default same)
#
# Per add line = (time of setup + 1 + N adds) - (time of setup + 1 add), divided by N; the
# fixed costs (start-up, key derivation at the 'interactive' cost, the first line of a
# command, which reads its declarations) cancel out. The bound is
# one write(2) of 300 bytes plus fsync(2) on a file in the same directory, N times. Each
# figure is the minimum of 5 interleaved runs. Prints one line per figure and the ratio.
set -euo pipefail
. "$(dirname "$0")/bench/add-script.sh"
binary=${1:-.build/release/giftkeeper}
count=${2:-1000}
runs=5
work=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
export XDG_STATE_HOME="$work/state"

password="bench-password-$$"
add_script $((count + 1)) "$password" >"$work/adds.txt"
add_script 1 "$password" >"$work/none.txt"

seconds() {  # seconds SCRIPT → wall time of one whole run on a fresh journal
    local journal="$work/j-$RANDOM$RANDOM.journal"
    local start end
    start=$(date +%s%N)
    "$binary" --journal "$journal" <"$1" >/dev/null
    end=$(date +%s%N)
    rm -f "$journal"
    echo $(((end - start) / 1000))
}

bound() {  # microseconds for N fsync'd 300-byte appends
    python3 - "$work/bound.dat" "$count" <<'PY'
import os, sys, time
path, n = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
payload = os.urandom(300)
start = time.perf_counter_ns()
for _ in range(n):
    os.write(fd, payload)
    os.fsync(fd)
end = time.perf_counter_ns()
os.close(fd)
os.unlink(path)
print((end - start) // 1000)
PY
}

best_adds=""; best_none=""; best_bound=""
for ((r = 0; r < runs; r++)); do
    a=$(seconds "$work/adds.txt"); n=$(seconds "$work/none.txt"); b=$(bound)
    [[ -z $best_adds || $a -lt $best_adds ]] && best_adds=$a
    [[ -z $best_none || $n -lt $best_none ]] && best_none=$n
    [[ -z $best_bound || $b -lt $best_bound ]] && best_bound=$b
done
per_line=$(((best_adds - best_none) / count))
per_append=$((best_bound / count))
echo "add line, through the command line, titles '${BENCH_TITLES:-same}': ${per_line} us per line (${count} lines; fixed costs ${best_none} us subtracted)"
echo "bound, a bare fsync'd 300-byte append: ${per_append} us"
python3 -c "print(f'ratio: {${per_line}/${per_append}:.2f} x (target: at most 1.5 x)')"
