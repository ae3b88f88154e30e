#!/usr/bin/env bash
# Where a script's `add` line spends its time, seen from outside the process: a preloaded
# shim (scripts/bench/fsync-split.c) times every fsync the built binary makes — its wall
# time and the CPU time the calling thread spends inside it — and the gap between one
# fsync's return and the next one's start (the line's own work and its other syscalls).
# The bound, bare write + fsync appends in C, runs under the same shim in each round, and so
# do appends with the system calls a line makes around its append and nothing else
# (scripts/bench/syscall-appends.c): what those calls cost, apart from the line's own code.
#
#   scripts/bench-fsync-split.sh [BINARY] [ROUNDS]   (defaults: .build/release/giftkeeper, 5)
#   BENCH_TITLES=person|same chooses the titles (scripts/bench/add-script.sh; default same)
#
# Prints three lines per round: the program's, the system calls' and the bound's fsync
# (median, mean, CPU inside it) and gap, each over the last 1,000 fsyncs (the script's lines). It explains the ratio
# scripts/bench-command-path.sh measures; it does not replace it (docs/performance.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench/add-script.sh"
binary=$(realpath "${1:-.build/release/giftkeeper}")
rounds=${2:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-fsync-split.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
cc -O2 -shared -fPIC -o "$work/fsync-split.so" "$here/bench/fsync-split.c" -ldl
cc -O2 -o "$work/bare-appends" "$here/bench/bare-appends.c"
cc -O2 -o "$work/syscall-appends" "$here/bench/syscall-appends.c"
add_script 1001 "bench-password-$$" >"$work/adds.txt"

for ((round = 1; round <= rounds; round++)); do
    rm -rf "$work/state" "$work/j.journal" "$work/program.txt" "$work/syscalls.txt" "$work/bound.txt"
    XDG_STATE_HOME="$work/state" FSYNC_SPLIT_OUT="$work/program.txt" LD_PRELOAD="$work/fsync-split.so" \
        "$binary" --journal "$work/j.journal" <"$work/adds.txt" >/dev/null 2>&1
    FSYNC_SPLIT_OUT="$work/syscalls.txt" LD_PRELOAD="$work/fsync-split.so" \
        "$work/syscall-appends" "$work/syscalls.journal" 1001 >/dev/null
    FSYNC_SPLIT_OUT="$work/bound.txt" LD_PRELOAD="$work/fsync-split.so" "$work/bare-appends" "$work/bound.dat" 1001
    echo "round $round: program:  $(cat "$work/program.txt")"
    echo "         syscalls: $(cat "$work/syscalls.txt")"
    echo "         bound:    $(cat "$work/bound.txt")"
done
