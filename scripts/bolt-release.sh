#!/usr/bin/env bash
# Lays the release binary's code out by how a script's lines run it (LLVM's BOLT, from a
# callgrind profile of this very binary), in place: `make release` runs it after linking.
#
#   scripts/bolt-release.sh [BINARY]   (default: .build/release/giftkeeper; linked with
#                                       --emit-relocs, so that BOLT may move every function)
#
# Why: after each fsync the code a line runs is cold again, and a line pays for every cache
# line of code it touches, in its own time and inside the next fsync (docs/performance.md,
# the command path). BOLT puts the blocks that run together, the Swift runtime's included,
# and moves the blocks that never run out of the way: about a quarter fewer
# instruction-cache misses a line than the linker's order of whole functions.
#
# The profile is made here, each time, from the binary being laid out (never stale): both
# title sets of scripts/bench/add-script.sh under valgrind's callgrind, then `list` and
# `summary`; then `import` of a document into a new account, `export` and `audit` of it.
# callgrind counts how often each instruction ran; BOLT reads those counts as samples
# normalised by instruction count ("no_lbr instructions"), which gives every block's
# count exactly. Takes about a minute. A binary already laid out is left alone.
#
# If anything here fails, the binary is left as linked (slower, the same behaviour) and this
# says so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$(realpath "${1:-.build/release/giftkeeper}")
. "$here/bench/add-script.sh"
. "$here/bench/bolt.sh"
. "$here/bench/callgrind.sh"
bolt=$(bolt_tool)
left_as_linked() { echo "bolt-release: $1: $binary is left as linked" >&2; exit 0; }
if laid_out "$binary"; then exit 0; fi
[[ -n $bolt ]] || left_as_linked "llvm-bolt is not installed (apt-get install bolt-19)"
command -v valgrind >/dev/null || left_as_linked "valgrind is not installed"
callgrind_setup bolt-release "$binary"

lay_out() {  # profiles the binary, then writes it laid out to $work/laid-out (run with set -e)
password="bolt-release-password-$$"
profiles=()
for titles in person same; do
    { BENCH_TITLES=$titles add_script 201 "$password" | sed '$d'; printf 'list\nsummary\nquit\n'; } \
        >"$work/$titles.script"
    callgrind_run "$work/$titles.script" "$work/$titles.out" --dump-instr=yes 2>/dev/null
    profiles+=("$work/$titles.out")
done
# Then the one-shot commands that read or write a whole journal (an import into a new
# account, then export and audit of it): without them, blocks that only they run would count
# as never run and be moved away.
(umask 077 && printf '%s\n' "$password" >"$work/password")
python3 "$here/bench/make-document.py" 201 >"$work/document.json"
add_script 0 "$password" |
    XDG_STATE_HOME="$work/state" "$work/giftkeeper" --journal "$work/imported.journal" >/dev/null 2>&1
for command in "import $work/document.json" export audit; do
    out="$work/${command%% *}.out"
    # shellcheck disable=SC2086  # the command and its document are two words
    callgrind_exec "$out" --dump-instr=yes -- $command --journal "$work/imported.journal" \
        --password-file "$work/password" </dev/null >/dev/null 2>&1
    profiles+=("$out")
done

# callgrind's counts per instruction of the binary → BOLT's profile: "1 FUNCTION OFFSET COUNT",
# a function's local symbols named as BOLT names them (NAME/N, the Nth local of that name).
python3 - "$binary" "$work/giftkeeper" "$work/profile.fdata" "${profiles[@]}" <<'PY'
import bisect, collections, re, subprocess, sys
binary, profiled, target, outs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
functions, locals_seen = [], collections.Counter()
symbols = subprocess.run(["nm", "--defined-only", "-S", "-p", binary], capture_output=True, text=True, check=True)
for line in symbols.stdout.splitlines():
    fields = line.split()
    if len(fields) == 4 and fields[2] in "tTwW":
        name = fields[3]
        if fields[2] == "t":
            locals_seen[name] += 1
            name = f"{name}/{locals_seen[name]}"
        functions.append((int(fields[0], 16), int(fields[1], 16), name))
functions.sort()
starts = [start for start, _, _ in functions]
counts = collections.Counter()
for out in outs:
    objects, in_binary, position, after_call = {}, False, 0, False
    for line in open(out):
        if line.startswith(("ob=", "cob=")):
            match = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if match.group(2) is not None:
                objects[match.group(1)] = match.group(2)
            if line.startswith("ob="):
                in_binary = objects.get(match.group(1)) == profiled
        elif line.startswith("calls="):
            after_call = True  # the next cost line is the call's inclusive cost
        elif line[:1] in ("0", "+", "-", "*"):
            fields = line.split()  # position (instruction, line), then Ir
            if fields[0].startswith("0x"):
                position = int(fields[0], 16)
            elif fields[0][0] in "+-":
                position += int(fields[0])
            if not after_call and in_binary and len(fields) > 2:
                counts[position] += int(fields[2])
            after_call = False
with open(target, "w") as profile:
    profile.write("no_lbr instructions\n")
    for address, count in sorted(counts.items()):
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address < functions[index][0] + max(functions[index][1], 1):
            profile.write(f"1 {functions[index][2]} {address - functions[index][0]:x} {count}\n")
PY

"$bolt" "$binary" -o "$work/laid-out" -data="$work/profile.fdata" -reorder-blocks=ext-tsp \
    -reorder-functions=cdsort -split-functions -split-all-cold -use-gnu-stack
"$work/laid-out" --version >/dev/null
}

# Any failure (valgrind, the profile, BOLT, the laid-out binary not running) leaves the binary
# as linked: errexit holds inside the subshell, which is not a condition.
set +e
(set -e; lay_out) >"$work/bolt.log" 2>&1
status=$?
set -e
if [[ $status != 0 ]]; then
    detail=$(grep -m1 -i 'error' "$work/bolt.log" || tail -n1 "$work/bolt.log")
    left_as_linked "laying out failed, status $status${detail:+: $detail}"
fi
chmod 0755 "$work/laid-out"
mv -f "$work/laid-out" "$binary"
echo "bolt-release: $(grep -o 'basic block reordering modified layout of [0-9]* functions' "$work/bolt.log" | sed 's/basic block reordering modified layout of/laid out/') of $binary from its profile"
