#!/usr/bin/env bash
# Import, export, audit, peak memory and start-up as a user meets them: whole processes of
# the built binary on journals built by `giftkeeper import` of ordinary documents, each
# against a bound measured in the same run (docs/performance.md, issue 12).
#
#   scripts/bench-black-box.sh [BINARY]        (default: .build/release/giftkeeper)
#
# Environment: BENCH_PRESENTS (default "10000 100000"; add 1000000 for the 1 M figures),
# BENCH_RUNS (default 5), BENCH_MEMCHECK (the Benchmarks package's memcheck binary: when
# set, the decrypted state is measured in process with it; otherwise peak memory is shown
# against the decrypted plaintext only), BENCH_ONLY (default "import,export,audit,startup":
# the figures to measure, comma-separated; without import each journal is imported once,
# untimed).
#
# Fixtures (in a temporary directory under /tmp, removed at the end): an account made with
# `setup --kdf interactive` (the binary has no cheaper cost), then `giftkeeper import` of a
# document from scripts/bench/make-document.py: N presents, notes of about 130 characters,
# 16 recipients, titles of two or three words, frames of about 280 bytes.
#
# Every figure is the minimum of BENCH_RUNS interleaved runs. The fixed costs (start-up,
# the key derivation, the account's own events) are subtracted by timing the same command
# on a one-present journal; the difference is divided by the presents (events) added.
# The bound (scripts/bench/crypto-bound.c, compiled here) reads the same journal file and
# does exactly the format's cryptography on every frame: both keyed BLAKE2b-256 chain
# hashes checked against the stored ones, one XChaCha20-Poly1305 open with its 60 bytes of
# additional data; its key derivation is outside its timing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$(realpath "${1:-.build/release/giftkeeper}")
sizes=${BENCH_PRESENTS:-10000 100000}
runs=${BENCH_RUNS:-5}
memcheck=${BENCH_MEMCHECK:-}
only=",${BENCH_ONLY:-import,export,audit,startup},"
measures() { [[ $only == *",$1,"* ]]; }
work=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-bench-bb.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
export XDG_STATE_HOME="$work/state"

# The password of the Benchmarks package's fixtures, so memcheck can open these journals.
password="correct horse battery staple"
printf '%s\n' "$password" >"$work/password"
chmod 600 "$work/password"

cc -O2 -o "$work/crypto-bound" "$here/bench/crypto-bound.c" -lsodium
cc -O2 -o "$work/run-timed" "$here/bench/run-timed.c"
printf 'import Foundation\nprint(Date.distantPast < Date() ? "ready" : "")\n' >"$work/hello.swift"
swiftc -O -module-cache-path "$work/module-cache" -o "$work/hello" "$work/hello.swift" 2>/dev/null

# timed OUT-PREFIX COMMAND… → appends "wall-µs cpu-µs peak-kB" to OUT-PREFIX.times
# (scripts/bench/run-timed.c: CPU time is user + system, steadier than wall time when
# others use the machine; the peak is the process's maximum resident set)
timed() {
    local out=$1
    shift
    "$work/run-timed" "$out.times" "$@" 2>"$work/stderr" || {
        echo "failed: $*" >&2
        cat "$work/stderr" >&2
        exit 1
    }
}
# minimum of a column of OUT-PREFIX.times: wall µs (1), CPU µs (2), peak kB (3)
min_of() { sort -n -k"$2" "$1.times" | head -1 | cut -d' ' -f"$2"; }
min_us() { min_of "$1" 1; }
min_cpu() { min_of "$1" 2; }
min_kb() { min_of "$1" 3; }

new_journal() {  # new_journal PATH: an empty account at the 'interactive' cost
    rm -f "$1"
    printf 'setup Bench --kdf interactive\n%s\n%s\nquit\n' "$password" "$password" |
        "$binary" --journal "$1" >/dev/null 2>&1
}

echo "Building the documents and the journals (${sizes// /, } presents)…" >&2
counts="1 $sizes"
for n in $counts; do
    python3 "$here/bench/make-document.py" "$n" >"$work/doc-$n.json"
done

# Import: a fresh account each run; the last run's journal is the fixture for the rest.
import_runs=$runs
measures import || import_runs=1
for ((r = 0; r < import_runs; r++)); do
    for n in $counts; do
        new_journal "$work/j-$n.journal"
        timed "$work/import-$n" "$binary" import --journal "$work/j-$n.journal" --password-file "$work/password" \
            "$work/doc-$n.json"
    done
done

# Export, audit and the bound, interleaved.
for ((r = 0; r < runs; r++)); do
    for n in $counts; do
        if measures export; then
            timed "$work/export-$n" "$binary" export --journal "$work/j-$n.journal" --password-file "$work/password"
        fi
        if measures audit; then
            timed "$work/audit-$n" "$binary" audit --journal "$work/j-$n.journal" --password-file "$work/password"
        fi
        "$work/crypto-bound" "$work/j-$n.journal" "$work/password" 1 >>"$work/bound-$n.out"
    done
done

printf 'quit\n' >"$work/quit"
# Start-up to the first prompt (the shell on a new journal, told to quit) against a Swift
# program that prints one line with Foundation loaded; many short runs.
for ((r = 0; r < runs * 4; r++)); do
    measures startup || break
    rm -f "$work/new.journal"
    timed "$work/startup" "$binary" --journal "$work/new.journal" <"$work/quit"
    timed "$work/hello" "$work/hello" <"$work/quit"
done

field() {  # field NAME FILE → the smallest value after NAME over the bound's lines
    tr ' ' '\n' <"$2" | grep -A1 -x "$1" | grep -v -x -e "$1" -e -- | sort -n | head -1
}
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}' if b else '-')" "$1" "$2"; }
per() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
# per_item COMMAND N ITEMS COLUMN-FUNCTION → (COMMAND on N - COMMAND on 1) / ITEMS
per_item() { per $(($($4 "$work/$1-$2") - $($4 "$work/$1-1"))) "$3"; }

echo
echo "Black-box figures: $(date -u +%Y-%m-%dT%H:%MZ), nproc $(nproc), $(lscpu | sed -n 's/^Model name: *//p' | head -1), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binary $binary; minimum of $runs interleaved runs; fixed costs subtracted with a one-present journal"
echo "wall = elapsed time of the whole process; CPU = its user + system time (the bound: its loop's)"
echo
echo "| figure | presents | measured, wall | bound, wall | ratio, wall | measured, CPU | bound, CPU | ratio, CPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
frames1=$(field frames "$work/bound-1.out")
for n in $sizes; do
    frames=$(field frames "$work/bound-$n.out")
    added=$((frames - frames1))
    bound=$(per "$(field us "$work/bound-$n.out")" "$frames")
    bound_cpu=$(per "$(field cpu_us "$work/bound-$n.out")" "$frames")
    for command in export audit; do
        measures "$command" || continue
        items=$((n - 1)) unit="µs per present"
        [[ $command == audit ]] && items=$added unit="µs per event"
        wall=$(per_item "$command" "$n" "$items" min_us)
        cpu=$(per_item "$command" "$n" "$items" min_cpu)
        echo "| $command, $unit | $n | $wall | $bound | **$(ratio "$wall" "$bound")×** | $cpu | $bound_cpu | **$(ratio "$cpu" "$bound_cpu")×** |"
    done
    if measures import; then
        rate() { python3 -c "import sys; print(f'{float(sys.argv[1]) / (float(sys.argv[2]) / 1e6):,.0f}')" $((n - 1)) "$1"; }
        wall=$(rate $(($(min_us "$work/import-$n") - $(min_us "$work/import-1"))))
        cpu=$(rate $(($(min_cpu "$work/import-$n") - $(min_cpu "$work/import-1"))))
        echo "| import, presents per second | $n | $wall | target ≥ 50,000 | $(ratio "${wall//,/}" 50000)× the target | $cpu | | $(ratio "${cpu//,/}" 50000)× the target |"
        echo "| peak memory, import | $n | $(($(min_kb "$work/import-$n") / 1024)) MB (one present: $(($(min_kb "$work/import-1") / 1024)) MB) | | | | | |"
    fi
    plain=$(field plaintext_bytes "$work/bound-$n.out")
    for command in audit export; do
        measures "$command" || continue
        kb=$(min_kb "$work/$command-$n")
        if [[ -n $memcheck ]]; then
            state=$("$memcheck" "$work/j-$n.journal" replay | sed -n 's/^state (resident growth over open + login) bytes \([0-9]*\).*/\1/p')
            echo "| peak memory, $command | $n | $((kb / 1024)) MB | decrypted state $((state / 1048576)) MB (memcheck) | **$(ratio $((kb * 1024)) "$state")×** | | | |"
        else
            echo "| peak memory, $command | $n | $((kb / 1024)) MB (one present: $(($(min_kb "$work/$command-1") / 1024)) MB) | decrypted plaintext $((plain / 1048576)) MB | $(ratio $((kb * 1024)) "$plain")× the plaintext | | | |"
        fi
    done
    echo "| (the journal) | $n | $frames frames, $(($(stat -c %s "$work/j-$n.journal") / frames)) bytes per frame | | | | | |"
done
measures startup || exit 0
startup=$(min_us "$work/startup")
hello=$(min_us "$work/hello")
startup_cpu=$(min_cpu "$work/startup")
hello_cpu=$(min_cpu "$work/hello")
echo "| start-up to the first prompt, ms | — | $(per "$startup" 1000) | Swift + Foundation printing a line: $(per "$hello" 1000) | **$(ratio "$startup" "$hello")×** | $(per "$startup_cpu" 1000) | $(per "$hello_cpu" 1000) | **$(ratio "$startup_cpu" "$hello_cpu")×** |"
