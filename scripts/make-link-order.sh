#!/usr/bin/env bash
# Writes scripts/link-order.txt: the functions a script's `add` lines run, hottest first, then
# every other function those runs reach (start-up, setup, sign-in, replay), as the section
# names the linker places first and together (`make release` compiles each function into a
# section of its own and links with gold's --section-ordering-file).
#
#   scripts/make-link-order.sh [BINARY]   (default: .build/release/giftkeeper)
#
# Why: after each fsync a line's code is cold again, and spread over about 250 pages of a
# 38 MB text it costs more than its instructions (docs/performance.md, the command path).
# Placed together it fits in about 110 pages. A function renamed since the order was written
# is simply placed where the linker would have put it: run this again after big changes.
# Profiles both title sets of scripts/bench/add-script.sh under valgrind's callgrind; takes
# a few minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench/add-script.sh"
. "$here/bench/callgrind.sh"
callgrind_setup make-link-order "$(realpath "${1:-.build/release/giftkeeper}")"

profile() {  # profile NAME TITLES COUNT → the functions' instruction counts in $work/NAME.txt
    BENCH_TITLES=$2 add_script "$3" "link-order-password-$$" >"$work/$1.script"
    callgrind_run "$work/$1.script" "$work/$1.out" --demangle=no 2>/dev/null
    callgrind_annotate --threshold=100 "$work/$1.out" | sed -nE 's/^ *([0-9,]+) +\([^)]*\) +([^ ]+).*/\1 \2/p' >"$work/$1.txt"
}
for titles in person same; do
    profile "$titles-many" "$titles" 101
    profile "$titles-one" "$titles" 1
done
python3 - "$work" "$here/link-order.txt" <<'PY'
import sys
work, target = sys.argv[1], sys.argv[2]
def counts(name):
    found = {}
    for line in open(f"{work}/{name}.txt"):
        count, function = line.split(" ", 1)
        function = function.strip().removeprefix("???:").split("'")[0]
        found[function] = found.get(function, 0) + int(count.replace(",", ""))
    return found
per_line, reached = {}, {}
for titles in ("person", "same"):
    many, one = counts(f"{titles}-many"), counts(f"{titles}-one")
    for function, count in many.items():
        reached[function] = reached.get(function, 0) + count
        if count - one.get(function, 0) >= 100:  # at least one instruction a line
            per_line[function] = per_line.get(function, 0) + count - one.get(function, 0)
def named(function):  # a symbol, not an address or a file of a library without symbols
    return not function.startswith(("0x", "./", "PROGRAM")) and "/" not in function
order = sorted(filter(named, per_line), key=lambda f: -per_line[f])
order += sorted((f for f in reached if named(f) and f not in per_line), key=lambda f: -reached[f])
with open(target, "w") as out:
    out.writelines(f".text.{function}\n" for function in order)
print(f"make-link-order: {sum(1 for f in per_line if named(f))} functions a line runs, {len(order)} in all")
PY
