#!/usr/bin/env bash
# Peak RSS of `picturebook analyze` (and of `prepare --stages analyze`) on one book of 24, 240,
# 1000 and 2000 pages, and the growth per page between the smallest and the largest book. analyze
# must keep one small record per page until every page is in (the panoramic-spread test compares
# each facing pair with the rest of the book), so some growth is expected: about 6 KB a page of
# edge profiles plus the book model itself. Not part of `make test` (figures, not assertions).
#
#   Tools/bench-analyze-memory.sh                         # release build, 24 240 1000 2000 pages
#   PB=/tmp/picturebook Tools/bench-analyze-memory.sh 24 2000
#   SIZE=400x500 PREPARE=0 Tools/bench-analyze-memory.sh  # analyze alone, bigger pages
#
# The learned detector is used when installed (PICTUREBOOK_DETECTOR_DIR for a binary outside
# .build/); the script prints which. The books are one generated 24-page book (SIZE, default
# 200x250) whose scans are hard-linked under new names, as in bench-thumbs-memory.sh: seconds to
# make, every page still decoded and analysed. Needs /usr/bin/time (Tools/setup.sh --bench) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-200x250}
WORK=${WORK:-.build/bench-analyze-memory}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(24 240 1000 2000)

command -v /usr/bin/time >/dev/null || { echo "bench-analyze-memory: /usr/bin/time is missing (Tools/setup.sh --bench)" >&2; exit 1; }
. Tools/release-binary.sh
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

template="$WORK/template-$SIZE"
[ -f "$template/book.json" ] || "$PB" generate --no-clean --no-truth --pages 24 --size "$SIZE" --seed 3 --out "$template" >/dev/null

rss() { awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$1"; }
rsskb() { awk -F': ' '/Maximum resident/ {print $2}' "$1"; }
cpu() { awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.1f", u + s}' "$1"; }

detector=$("$PB" analyze --json --dry-run --no-masks "$template" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["detector"])' || echo "?")
echo "bench-analyze-memory: $PB, pages $SIZE, detector $detector, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M UTC')"
first_n="" first_kb="" last_n="" last_kb=""
for n in "${sizes[@]}"; do
    dir="$WORK/lib-$n/book"
    rm -rf "$WORK/lib-$n"
    mkdir -p "$dir"
    python3 Tools/stretch-book.py "$template" "$dir" "$n" --no-boxes
    cp "$dir/book.json" "$WORK/book-$n.json"
    /usr/bin/time -v -o "$WORK/analyze-$n.txt" "$PB" analyze "$dir" >/dev/null 2>"$WORK/analyze-$n.err" || { cat "$WORK/analyze-$n.err" >&2; exit 1; }
    line=$(printf '%5d pages: analyze peak RSS %4s MiB (%s elapsed, %s s CPU)' "$n" "$(rss "$WORK/analyze-$n.txt")" \
        "$(awk -F': ' '/Elapsed/ {print $2}' "$WORK/analyze-$n.txt")" "$(cpu "$WORK/analyze-$n.txt")")
    if [ "${PREPARE:-1}" != 0 ]; then
        # The same book afresh through prepare's analyze stage (in-process, as in a library run).
        cp "$WORK/book-$n.json" "$dir/book.json"
        rm -rf "$dir/masks" "$dir/.picturebook"
        /usr/bin/time -v -o "$WORK/prepare-$n.txt" "$PB" prepare "$WORK/lib-$n" --stages analyze >/dev/null 2>"$WORK/prepare-$n.err" || { cat "$WORK/prepare-$n.err" >&2; exit 1; }
        line+=$(printf '; prepare --stages analyze %4s MiB' "$(rss "$WORK/prepare-$n.txt")")
    fi
    echo "$line"
    [ -n "$first_n" ] || { first_n=$n; first_kb=$(rsskb "$WORK/analyze-$n.txt"); }
    last_n=$n; last_kb=$(rsskb "$WORK/analyze-$n.txt")
    rm -rf "$WORK/lib-$n" "$WORK/book-$n.json"
done
if [ "$last_n" != "$first_n" ]; then
    echo "growth: $(( (last_kb - first_kb) * 1024 / (last_n - first_n) )) bytes per page of analyze's peak RSS from $first_n to $last_n pages"
fi
