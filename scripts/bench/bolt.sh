# Sourced by the scripts that lay the release binary out with LLVM's BOLT or check that it was
# (bolt-release.sh, check-install.sh).
#
#   bolt_tool          prints the path of llvm-bolt (Debian's bolt-19 names it llvm-bolt-19),
#                      nothing when it is not installed
#   laid_out BINARY    whether BOLT wrote BINARY (it leaves a .note.bolt_info section)
bolt_tool() { command -v llvm-bolt-19 || command -v llvm-bolt || true; }

laid_out() {
    local sections
    sections=$(readelf -S "$1")  # read whole: grep -q on a pipe could end readelf early
    grep -q '\.note\.bolt_info' <<<"$sections"
}
