#!/usr/bin/env bash
# Fuzzes GiftKeeper's readers of untrusted bytes with libFuzzer and AddressSanitizer:
# every target of Fuzz/Checks for FUZZ_SECONDS (default 60) each, from its committed seed
# corpus in Fuzz/Corpus. An input that breaks an invariant or crashes is saved under
# .build-fuzz/findings/ and the script fails; put the input in Fuzz/Corpus/<target>/ and it
# becomes a regression test of `make test` (GiftKeeperFuzzTests).
#
# SwiftPM builds the libraries with coverage instrumentation (-sanitize=fuzzer); the
# harness itself is linked by swiftc, because a SwiftPM executable target does not link
# with libFuzzer's main.
#
#   scripts/fuzz.sh                 every target, FUZZ_SECONDS each
#   scripts/fuzz.sh tokenizer ...   only these targets
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
build=.build-fuzz
# Every target is a directory of seeds: a harness added with its corpus is fuzzed too.
all_targets=()
for corpus in Fuzz/Corpus/*/; do all_targets+=("$(basename "$corpus")"); done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    [ -d "Fuzz/Corpus/$target" ] || { echo "fuzz: no target '$target' (targets: ${all_targets[*]})" >&2; exit 2; }
done

echo "fuzz: building the libraries with libFuzzer and AddressSanitizer instrumentation"
mkdir -p "$build"
# The shell's library and what it stands on, and the sync service's wire format (which
# the shell does not import; its network client, GiftKeeperRemote, is not fuzzed here).
: >"$build/build.log"
for library in GiftKeeperREPL GiftKeeperWire; do
    swift build --build-path "$build" -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing \
        -Xcc -fsanitize=fuzzer-no-link,address --target "$library" >>"$build/build.log" 2>&1 \
        || { tail -n 30 "$build/build.log" >&2; echo "fuzz: the build failed" >&2; exit 1; }
done

objects=()
while IFS= read -r -d '' object; do objects+=("$object"); done < <(
    find "$build/debug/" \( -name '*Tests.build' -o -name '*-tool.build' -o -name 'giftkeeper.build' \
        -o -name 'journal-append-probe.build' \) -prune -o -name '*.o' -print0)
harness="$build/giftkeeper-fuzz"
# The checks use `package` declarations: compile them in the package SwiftPM named (after
# the checkout's directory), as its build plan says.
package_name=$(grep -m1 '"-module-name","GiftKeeperREPL"' "$build/debug.yaml" | grep -o '"-package-name","[^"]*"' | cut -d'"' -f4)
[ -n "$package_name" ] || { echo "fuzz: no package name in $build/debug.yaml" >&2; exit 1; }
echo "fuzz: linking $harness"
swiftc -sanitize=fuzzer,address -parse-as-library -g -package-name "$package_name" \
    -I "$build/debug/Modules" -I Sources/CSodium -I Sources/CReadline \
    Fuzz/Entry/*.swift Fuzz/Checks/*.swift "${objects[@]}" -o "$harness" 2>&1 \
    | grep -v 'Cannot export local symbol' || true
test -x "$harness" || { echo "fuzz: the harness did not link" >&2; exit 1; }

mkdir -p "$build/findings" "$build/tmp"
chmod 700 "$build/tmp"
failed=()
for target in "${targets[@]}"; do
    work="$build/corpus/$target"
    mkdir -p "$work"
    echo "fuzz: $target for ${seconds}s"
    # detect_leaks=0: the Swift runtime's caches that live as long as the process look like leaks.
    if ! GIFTKEEPER_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no TMPDIR="$PWD/$build/tmp" \
        ASAN_OPTIONS=detect_leaks=0 "$harness" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
        -artifact_prefix="$build/findings/$target-" -print_final_stats=1 "$work" "Fuzz/Corpus/$target" \
        >"$build/$target.log" 2>&1; then
        failed+=("$target")
        tail -n 30 "$build/$target.log" >&2
    fi
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$build/$target.log" | sed "s/^/fuzz: $target /" || true
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]}. The inputs are in $PWD/$build/findings/:" >&2
    ls -l "$build/findings/" >&2
    echo "fuzz: copy each into Fuzz/Corpus/<target>/ (a regression test of make test), then fix." >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each: no failure"
