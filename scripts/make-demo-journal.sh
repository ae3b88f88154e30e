#!/usr/bin/env bash
# Regenerates journal/demo.journal: a sample a newcomer can audit and export at once.
# Password: demo-password. Holds presents across recipients, occasions and statuses, dated and
# yearly occasions, budgets, an edit, a removal and a restore, a sign-out, a failed login
# (reported) and a password change.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product giftkeeper >/dev/null
bin="$(swift build --show-bin-path)/giftkeeper"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data"
journal="$work/demo/demo.journal"

# The script fails one login on purpose, so the session exits 3 (a wrong password).
status=0
"$bin" --journal "$journal" <<'SCRIPT' || status=$?
setup Alice --kdf interactive --currency EUR
first-password
first-password
occasion add Christmas --date 2026-12-24 --yearly
occasion add "Dad's birthday" --date 1958-01-19 --yearly
add Mum "Blue cashmere scarf" --price 45.00 --occasion Christmas --notes "She mentioned the blue one at the market" --store "Market stall"
add Dad "Vinyl: Kind of Blue" --price 28.50 --occasion "Dad's birthday"
add Sam "Climbing chalk bag" --price 19,99 --occasion christmas --url https://example.org/chalk-bag
add mum "Tea sampler" --price 12
add Grandma "Photo book of the summer" --occasion Christmas --notes "Pick photos from the lake trip"
budget set 150 --occasion Christmas
budget set 50 --for Mum
mark p1 bought
mark p2 bought
mark p2 wrapped
mark p3 given
edit p4 title="Oolong tea sampler" price=14.00
remove p5
restore p5
signout
login
not-the-password
login
first-password
add Sam "Headlamp" --price 32 --occasion "Sam's birthday"
passwd
first-password
demo-password
demo-password
mark p6 bought
quit
SCRIPT
if [ "$status" -ne 3 ]; then
  echo "make-demo-journal: the session exited $status, expected 3 (one wrong password)" >&2
  exit 1
fi

install -m 0600 "$journal" journal/demo.journal
echo "Wrote journal/demo.journal (password: demo-password)."
