#!/usr/bin/env bash
# Times GiftKeeper against two peers that keep private lists in one encrypted file,
# whole-process, side by side in one run (issue 5; the results go in docs/performance.md):
#
#   jrnl         (PyPI)   an encrypted journal (its default: AES via Fernet, PBKDF2)
#   keepassxc-cli (Debian) a password database (its default: AES-KDF, 1,000,000 rounds)
#   giftkeeper            at the interactive Argon2id cost (what `setup --kdf interactive` writes)
#
# For each size (1,000 and 10,000 gifts/entries by default) it builds equal data sets
# (same titles, recipients, notes and prices), then times with hyperfine:
#   export       everything, decrypted, to /dev/null
#   add one      unlock, add one entry, save, quit
#   open + list  unlock and list every entry
# A mutating command runs on a fresh copy of its data set each time (hyperfine --prepare),
# so every run sees exactly N entries.
#
# Usage: scripts/compare-peers.sh [--install] [--sizes "1000 10000"] [--runs N] [--out FILE]
#   --install   apt-get install hyperfine keepassxc, pip install jrnl (needs root or sudo)
# Not part of `make test`. Passwords are fed on standard input with no controlling
# terminal (`setsid -w`), which both peers accept (jrnl through getpass's fallback).
set -euo pipefail

sizes="1000 10000"
runs=10
out=""
install=false
while [ $# -gt 0 ]; do
    case "$1" in
        --install) install=true ;;
        --sizes) sizes="$2"; shift ;;
        --runs) runs="$2"; shift ;;
        --out) out="$2"; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo

if $install; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq hyperfine keepassxc libsodium-dev libreadline-dev pkg-config
    python3 -m pip install -q jrnl
fi

missing=()
for tool in hyperfine setsid python3; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ ${#missing[@]} -eq 0 ] || { echo "missing: ${missing[*]} (run with --install)" >&2; exit 1; }
have_jrnl=true; command -v jrnl >/dev/null || { have_jrnl=false; echo "jrnl not installed: skipped (--install)" >&2; }
have_kp=true; command -v keepassxc-cli >/dev/null || { have_kp=false; echo "keepassxc-cli not installed: skipped (--install)" >&2; }

# GiftKeeper, release build (its own scratch path so it never disturbs a debug .build).
if [ -z "${GIFTKEEPER:-}" ]; then
    (cd "$root" && swift build -c release --scratch-path .build-perf --product giftkeeper >/dev/null)
    GIFTKEEPER="$root/.build-perf/release/giftkeeper"
fi

work=$(mktemp -d /tmp/giftkeeper-peers.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 700 "$work"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
export XDG_STATE_HOME="$work/home/.local/state" XDG_CACHE_HOME="$work/home/.cache"
mkdir -p "$XDG_CONFIG_HOME/jrnl" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
password="correct horse battery staple"
printf '%s\n' "$password" > "$work/password"
chmod 600 "$work/password"

results="$work/results.tsv"
: > "$results"

# One hyperfine measurement: NAME PREPARE COMMAND → a line "size op tool mean sd" in $results.
measure() {
    local size="$1" op="$2" tool="$3" prepare="$4" command="$5"
    local json="$work/h-$size-$op-$tool.json"
    local args=(--runs "$runs" --warmup 1 --export-json "$json" --style basic)
    [ -n "$prepare" ] && args+=(--prepare "$prepare")
    hyperfine "${args[@]}" "$command" >/dev/null 2>"$work/hyperfine.err" || {
        echo "FAILED: $tool $op ($size): $(tail -3 "$work/hyperfine.err")" >&2; return 0; }
    python3 - "$json" "$size" "$op" "$tool" >> "$results" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{sys.argv[4]}\t{r['mean']:.4f}\t{r['stddev'] or 0:.4f}\t{r['median']:.4f}")
EOF
}

for size in $sizes; do
    d="$work/n$size"
    mkdir -p "$d"
    chmod 700 "$d"
    # Equal data sets: the same N gifts for all three.
    python3 - "$size" "$d" <<'EOF'
import base64, json, os, sys, uuid
n, d = int(sys.argv[1]), sys.argv[2]
people = ["Mum", "Dad", "Grandma Rose", "Uncle Bartholomew", "Aunt Margaret", "Sam", "Alex", "Kim"]
titles = ["Wool scarf", "Hardback cookbook", "Noise-cancelling headphones", "Board game", "Tea sampler"]
gifts = []
for i in range(1, n + 1):
    gifts.append(dict(id=f"p{i}", recipient=people[i % len(people)], title=f"{titles[i % len(titles)]} {i}",
                      notes="from the shop on the corner, size M" if i % 5 == 0 else "",
                      price=None if i % 4 == 0 else f"{(100 + i % 9900) / 100:.2f}"))
t = "2026-11-22T14:03:07.123Z"
doc = {"account": {"name": "Bench"}, "format": "giftkeeper.export.v1", "presents": [
    {"createdAt": t, "id": g["id"], "notes": g["notes"], "occasion": "Christmas 2026", "price": g["price"],
     "recipient": g["recipient"], "status": "idea", "title": g["title"], "updatedAt": t} for g in gifts]}
json.dump(doc, open(f"{d}/gifts.json", "w"))
with open(f"{d}/jrnl.txt", "w") as f:
    for i, g in enumerate(gifts):
        day = 1 + i % 28
        f.write(f"[2026-{1 + (i // 28) % 12:02d}-{day:02d} 09:00:00 AM] {g['recipient']}: {g['title']}.\n")
        f.write(f"Price {g['price'] or 'none'}, Christmas 2026. {g['notes']}\n\n")
def u(): return base64.b64encode(uuid.uuid4().bytes).decode()
with open(f"{d}/keepass.xml", "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<KeePassFile><Meta><Generator>bench</Generator>'
            f'<DatabaseName>gifts</DatabaseName></Meta><Root><Group><UUID>{u()}</UUID><Name>Root</Name>\n')
    for g in gifts:
        notes = f"Price {g['price'] or 'none'}, Christmas 2026. {g['notes']}"
        f.write(f"<Entry><UUID>{u()}</UUID><String><Key>Title</Key><Value>{g['title']}</Value></String>"
                f"<String><Key>UserName</Key><Value>{g['recipient']}</Value></String>"
                f"<String><Key>Notes</Key><Value>{notes}</Value></String></Entry>\n")
    f.write("</Group></Root></KeePassFile>\n")
EOF

    # GiftKeeper: a journal at the interactive cost, the gifts imported (group commit).
    printf 'setup Bench --kdf interactive\n%s\n%s\nquit\n' "$password" "$password" \
        | "$GIFTKEEPER" --journal "$d/gk.journal" >/dev/null
    "$GIFTKEEPER" import --journal "$d/gk.journal" --password-file "$work/password" "$d/gifts.json" >/dev/null
    cp "$d/gk.journal" "$d/gk.pristine"
    gk_prepare="cp $d/gk.pristine $d/gk.journal && chmod 600 $d/gk.journal && rm -rf $XDG_STATE_HOME/giftkeeper"
    measure "$size" export giftkeeper "$gk_prepare" \
        "$GIFTKEEPER export --journal $d/gk.journal --password-file $work/password"
    measure "$size" add-one giftkeeper "$gk_prepare" \
        "printf 'login\\n%s\\nadd Mum \"Blue scarf\" --price 25\\nquit\\n' '$password' | $GIFTKEEPER --journal $d/gk.journal"
    measure "$size" open-list giftkeeper "$gk_prepare" \
        "printf 'login\\n%s\\nlist\\nquit\\n' '$password' | $GIFTKEEPER --journal $d/gk.journal"

    if $have_jrnl; then
        cat > "$XDG_CONFIG_HOME/jrnl/jrnl.yaml" <<EOF
colors: {body: none, date: none, tags: none, title: none}
default_hour: 9
default_minute: 0
editor: ''
encrypt: false
highlight: false
indent_character: '|'
journals:
  default:
    journal: $d/jrnl.txt
linewrap: 79
tagsymbols: '#@'
template: false
timeformat: '%Y-%m-%d %I:%M:%S %p'
version: v4.6
EOF
        # Encrypt it with jrnl's own default (answers: password twice, no keychain).
        printf '%s\n%s\nn\n' "$password" "$password" | setsid -w jrnl --encrypt >/dev/null 2>&1
        cp "$d/jrnl.txt" "$d/jrnl.pristine"
        jr_prepare="cp $d/jrnl.pristine $d/jrnl.txt"
        measure "$size" export jrnl "$jr_prepare" "setsid -w jrnl --format json < $work/password"
        measure "$size" add-one jrnl "$jr_prepare" "setsid -w jrnl 'Mum: Blue scarf. Price 25.00' < $work/password"
        measure "$size" open-list jrnl "$jr_prepare" "setsid -w jrnl --format short < $work/password"
    fi

    if $have_kp; then
        # keepassxc-cli import writes its default KDF (AES-KDF, 1,000,000 rounds, as db-create does).
        printf '%s\n%s\n' "$password" "$password" | setsid -w keepassxc-cli import -p "$d/keepass.xml" "$d/kp.kdbx" >/dev/null 2>&1
        cp "$d/kp.kdbx" "$d/kp.pristine"
        kp_prepare="cp $d/kp.pristine $d/kp.kdbx"
        measure "$size" export keepassxc-cli "$kp_prepare" "setsid -w keepassxc-cli export -q -f xml $d/kp.kdbx < $work/password"
        measure "$size" add-one keepassxc-cli "$kp_prepare" \
            "setsid -w keepassxc-cli add -q -u Mum --notes 'Price 25.00' $d/kp.kdbx 'Blue scarf' < $work/password"
        measure "$size" open-list keepassxc-cli "$kp_prepare" "setsid -w keepassxc-cli ls -q -R -f $d/kp.kdbx < $work/password"
    fi
done

report() {
    python3 - "$results" <<'EOF'
import sys, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(dict)
for size, op, tool, mean, sd, median in rows:
    by[(int(size), op)][tool] = (float(mean), float(sd))
print("| entries | operation | giftkeeper | jrnl | keepassxc-cli | jrnl / giftkeeper | keepassxc-cli / giftkeeper |")
print("|---:|---|---:|---:|---:|---:|---:|")
def cell(t): return f"{t[0]*1000:.1f} ± {t[1]*1000:.1f} ms" if t else "n/a"
for (size, op) in sorted(by, key=lambda k: (k[0], ["export", "add-one", "open-list"].index(k[1]))):
    r = by[(size, op)]
    gk = r.get("giftkeeper")
    ratio = lambda peer: f"{r[peer][0] / gk[0]:.2f}×" if gk and peer in r else "n/a"
    print(f"| {size:,} | {op} | {cell(gk)} | {cell(r.get('jrnl'))} | {cell(r.get('keepassxc-cli'))} | {ratio('jrnl')} | {ratio('keepassxc-cli')} |")
EOF
}

{
    echo "Run $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
    echo "hyperfine --runs $runs --warmup 1; mean ± standard deviation of whole-process wall time."
    echo "Versions: $("$GIFTKEEPER" --version 2>/dev/null || echo giftkeeper), $($have_jrnl && jrnl --version 2>/dev/null | head -1 || echo 'jrnl n/a'), keepassxc-cli $($have_kp && keepassxc-cli --version || echo n/a)."
    echo
    report
} | tee ${out:+"$out"}
