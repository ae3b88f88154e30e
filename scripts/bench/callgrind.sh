# Sourced by the scripts that profile the built binary under valgrind's callgrind
# (bench-code-footprint.sh, bolt-release.sh).
#
#   callgrind_setup NAME BINARY      a private work directory, $work (removed on exit), holding
#                                    BINARY without DWARF as $work/giftkeeper, so that valgrind
#                                    reads the symbols of a 150 MB static binary quickly
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

callgrind_run() {
    local script=$1 out=$2
    shift 2
    rm -rf "$work/state" "$work/j.journal"
    XDG_STATE_HOME="$work/state" valgrind --tool=callgrind --callgrind-out-file="$out" "$@" \
        "$work/giftkeeper" --journal "$work/j.journal" <"$script" >/dev/null
}
