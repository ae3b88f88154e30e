# Sourced by the scripts that profile the built binary under valgrind's callgrind
# (bench-code-footprint.sh, bolt-release.sh).
#
#   callgrind_setup NAME BINARY      a private work directory, $work (removed on exit), holding
#                                    BINARY without DWARF as $work/giftkeeper, so that valgrind
#                                    reads the symbols of a 150 MB static binary quickly
#   callgrind_exec OUT [OPTION...] -- [ARGUMENT...]
#                                    runs that copy with the ARGUMENTs under callgrind's OPTIONs,
#                                    its state in $work/state, the profile written to OUT
#   callgrind_run SCRIPT OUT [OPTION...]
#                                    runs that copy on the shell script SCRIPT, on a fresh
#                                    journal and state, with callgrind's profile written to OUT;
#                                    valgrind's summary goes to standard error
callgrind_setup() {
    command -v valgrind >/dev/null || { echo "$1: valgrind is not installed" >&2; exit 2; }
    work=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-$1.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    chmod 700 "$work"
    strip --strip-debug -o "$work/giftkeeper" "$2"
}

callgrind_exec() {
    local out=$1 options=()
    shift
    while [[ $1 != -- ]]; do
        options+=("$1")
        shift
    done
    shift
    XDG_STATE_HOME="$work/state" valgrind --tool=callgrind --callgrind-out-file="$out" "${options[@]}" \
        "$work/giftkeeper" "$@"
}

callgrind_run() {
    local script=$1 out=$2
    shift 2
    rm -rf "$work/state" "$work/j.journal"
    callgrind_exec "$out" "$@" -- --journal "$work/j.journal" <"$script" >/dev/null
}
