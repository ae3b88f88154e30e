#!/usr/bin/env bash
# `make install PREFIX=<a temporary directory>`, then checks what a user gets: a binary
# that runs (the release build: the Swift runtime linked in), a man page `man -l` renders,
# and bash/zsh/fish completions that know the subcommands and complete paths for --journal.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d "${TMPDIR:-/tmp}/giftkeeper-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
make install PREFIX="$prefix" >/dev/null

fail() { echo "check-install: $*" >&2; exit 1; }
"$prefix/bin/giftkeeper" --version | grep -q '^giftkeeper ' || fail "the installed binary does not run"
if ldd "$prefix/bin/giftkeeper" | grep -q 'libswiftCore'; then
    fail "the installed binary loads the Swift runtime as a shared library: it is not the release build"
fi
page=$(MANWIDTH=80 man -l "$prefix/share/man/man1/giftkeeper.1" 2>/dev/null) || fail "man -l cannot render the page"
for word in NAME SYNOPSIS audit export list --journal ENVIRONMENT GIFTKEEPER_JOURNAL FILES "EXIT STATUS" 130 EXAMPLES "upcoming --days 14 --check"; do
    grep -q -- "$word" <<<"$page" || fail "the man page lacks '$word'"
done
bash_script="$prefix/share/bash-completion/completions/giftkeeper"
grep -q 'list' "$bash_script" || fail "the bash completion lacks the one-shot commands"
grep -A3 "'--journal')" "$bash_script" | grep -q -- '-f' || fail "the bash completion does not complete paths for --journal"
bash -n "$bash_script" || fail "the bash completion is not valid bash"
grep -q 'giftkeeper' "$prefix/share/zsh/site-functions/_giftkeeper" || fail "no zsh completion"
grep -q "complete -c 'giftkeeper'" "$prefix/share/fish/vendor_completions.d/giftkeeper.fish" || fail "no fish completion"
echo "check-install: binary, man page and completions installed under a temporary PREFIX work"
