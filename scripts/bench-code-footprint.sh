#!/usr/bin/env bash
# How much work, and how much code, one `add` line of a script is: instructions and
# first-level instruction-cache misses per line, counted by valgrind's callgrind with its
# cache simulation (a 32 KB, 8-way instruction cache), which count the same whatever else
# the machine does. (I(1,001 adds) − I(1 add)) / 1,000, the fixed costs cancelling out.
#
#   scripts/bench-code-footprint.sh [BINARY]   (default: .build/release/giftkeeper)
#   BENCH_TITLES=person|same chooses the titles (scripts/bench/add-script.sh; default same)
#
# The code a line runs is fetched again after each fsync has evicted it, and slows the
# fsync too (docs/performance.md, the command path): the misses are the measure to drive
# down. The profiles are kept for callgrind_annotate: CALLGRIND_KEEP=DIR keeps
# DIR/adds.callgrind and DIR/one.callgrind. Takes a minute or two.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench/add-script.sh"
. "$here/bench/callgrind.sh"
callgrind_setup bench-code-footprint "$(realpath "${1:-.build/release/giftkeeper}")"
add_script 1001 "bench-password-$$" >"$work/adds.txt"
add_script 1 "bench-password-$$" >"$work/one.txt"

profile() {  # profile NAME → the run's totals in $work/NAME.err
    callgrind_run "$work/$1.txt" "$work/$1.callgrind" --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
        --LL=1048576,16,64 2>"$work/$1.err"
}
profile adds
profile one
python3 - "$work/adds.err" "$work/one.err" <<'PY'
import re, sys
def totals(path):
    found = {}
    for line in open(path):
        match = re.search(r"(I\s+refs|I1\s+misses):\s+([\d,]+)", line)
        if match:
            found[match.group(1).split()[0]] = int(match.group(2).replace(",", ""))
    return found
adds, one = totals(sys.argv[1]), totals(sys.argv[2])
print(f"instructions per add line: {(adds['I'] - one['I']) / 1000:,.0f}")
print(f"instruction-cache misses per add line (32 KB I1): {(adds['I1'] - one['I1']) / 1000:,.0f}")
PY
if [[ -n ${CALLGRIND_KEEP:-} ]]; then cp "$work/adds.callgrind" "$work/one.callgrind" "$CALLGRIND_KEEP/"; fi
