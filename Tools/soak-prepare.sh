#!/usr/bin/env bash
# kill -9 soak of `picturebook prepare`: a library of BOOKS small books (default 50) is prepared
# once without interruption (the reference), then a fresh copy is prepared by runs killed with
# SIGKILL at KILLS random moments (default 20), then one final run and the merge. Passes when the
# outputs are byte for byte the reference's and no temp, lock or stale-lock file is left.
#
#   Tools/soak-prepare.sh                   # release build, 50 books × 4 pages, 20 kills
#   PB=.build/debug/picturebook BOOKS=10 KILLS=5 Tools/soak-prepare.sh
#   SEED=7 Tools/soak-prepare.sh            # other kill moments
#
# Three kinds of bookkeeping record stamp a file written during the run with its modification
# time (when it was written, not what it holds) and are only checked to exist in both trees:
# the library grid's record, clear's per-page .key files and clear's stage record (see
# Tests/CLITests/PrepareTests.swift, expectSameOutputs). Everything else must be identical.
# Not part of `make test`: it takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

BOOKS=${BOOKS:-50}
PAGES=${PAGES:-4}
SIZE=${SIZE:-240x300}
KILLS=${KILLS:-20}
SEED=${SEED:-1}
TEMPLATES=${TEMPLATES:-10}
WORK=${WORK:-.build/soak-prepare}

. Tools/release-binary.sh
mkdir -p "$WORK/templates"
WORK=$(cd "$WORK" && pwd)

for t in $(seq 1 "$TEMPLATES"); do
    dir="$WORK/templates/t$t-$PAGES-$SIZE"
    [ -f "$dir/book.json" ] || "$PB" generate --no-clean --no-truth --pages "$PAGES" --size "$SIZE" --seed "$t" --out "$dir" >/dev/null
done
make_library() {
    rm -rf "$1"
    mkdir -p "$1"
    for i in $(seq 1 "$BOOKS"); do
        t=$(( (i - 1) % TEMPLATES + 1 ))
        # cp -a keeps the scans' times, so both libraries start from identical inputs.
        cp -a "$WORK/templates/t$t-$PAGES-$SIZE" "$1/book-$(printf %03d "$i")"
    done
}

echo "soak-prepare: $BOOKS books × $PAGES pages ($SIZE), $KILLS kills, seed $SEED, load $(cut -d' ' -f1-3 /proc/loadavg)"
# Both runs happen at the same path ($WORK/library): records name the thumbnail folder and the
# collection is labelled with the library's folder name, so the reference is moved aside after.
rm -rf "$WORK/reference"
make_library "$WORK/library"
start=$(date +%s.%N)
"$PB" prepare "$WORK/library" >/dev/null 2>"$WORK/reference.err" || { cat "$WORK/reference.err" >&2; exit 1; }
end=$(date +%s.%N)
"$PB" prepare "$WORK/library" --merge >/dev/null 2>>"$WORK/reference.err"
mv "$WORK/library" "$WORK/reference"
total=$(echo "$end - $start" | bc)
echo "uninterrupted run: ${total} s"

make_library "$WORK/library"
# Kill moments: uniform in [0.05, 1.5·T/KILLS] s after each start, so on average the killed runs
# together get through about three quarters of the work and most kills land mid-book.
delays=$(python3 -c "
import random; random.seed($SEED)
hi = max(0.1, 1.5 * $total / $KILLS)
print(' '.join('%.3f' % random.uniform(0.05, hi) for _ in range($KILLS)))")
hit=0
for d in $delays; do
    "$PB" prepare "$WORK/library" >/dev/null 2>&1 &
    pid=$!
    sleep "$d"
    if kill -9 "$pid" 2>/dev/null; then hit=$((hit + 1)); fi
    wait "$pid" 2>/dev/null || true
done
echo "kills: $KILLS at $(echo "$delays" | tr ' ' ',') s; $hit landed while prepare was running"
"$PB" prepare "$WORK/library" >/dev/null 2>"$WORK/final.err" || { echo "soak-prepare: the final run failed" >&2; cat "$WORK/final.err" >&2; exit 1; }
"$PB" prepare "$WORK/library" --merge >/dev/null 2>>"$WORK/final.err"

python3 - "$WORK/reference" "$WORK/library" <<'PY'
import os, sys
a, b = sys.argv[1], sys.argv[2]
def tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out
def stamped(p):
    return p == "thumbs/library.json" or p.endswith("/.prepare/clear.done") or ("/clear/." in p and p.endswith(".png.key"))
ta, tb = tree(a), tree(b)
left = sorted(p for p in tb if ".tmp-" in p or p.endswith(".lock") or ".stale-" in p)
only = sorted(set(ta) ^ set(tb))
differ = sorted(p for p in ta if p in tb and not stamped(p) and ta[p] != tb[p])
compared = sum(1 for p in ta if p in tb and not stamped(p))
print(f"files: {len(ta)} in the reference, {len(tb)} after the kills; {compared} compared byte for byte, "
      f"{sum(1 for p in ta if stamped(p))} time-stamped records checked for presence")
ok = True
if only: ok = False; print("FAIL files in one tree only:", only[:20])
if differ: ok = False; print("FAIL bytes differ:", differ[:20])
if left: ok = False; print("FAIL leftovers:", left[:20])
print("soak-prepare: PASS (identical outputs, no temp or lock files left)" if ok else "soak-prepare: FAIL")
sys.exit(0 if ok else 1)
PY
