#!/usr/bin/env bash
# Benchmark: `picturebook export` of one sample book in every format, and `import` back, printing
# the median wall time of RUNS runs per format (the issue's targets: ≤ 2 s per format for a
# 28-page book, ≤ 10 s for EPUB with its ClearText editions).
#
#   Tools/bench-export.sh                          # Books/salmas-red-kite (28 pages), 5 runs
#   BOOK=Books/lighthouse-cat RUNS=3 Tools/bench-export.sh
#   CONFIG=debug SKIP_BUILD=1 Tools/bench-export.sh   # a build you already have
#   PB=/path/to/picturebook Tools/bench-export.sh     # a given binary (no build)
#
# Each run writes into a fresh folder, so nothing is reused between runs. The machine's load is
# printed: on a shared machine the figures move.
set -euo pipefail
cd "$(dirname "$0")/.."

BOOK=${BOOK:-Books/salmas-red-kite}
RUNS=${RUNS:-5}
CONFIG=${CONFIG:-release}

if [ -z "${PB:-}" ]; then
    if [ -z "${SKIP_BUILD:-}" ]; then
        swift build -c "$CONFIG" --product picturebook >&2
    fi
    PB="$(swift build -c "$CONFIG" --show-bin-path)/picturebook"
fi
WORK=$(mktemp -d /tmp/pb-bench-export-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Median of the run times (seconds) given on stdin, one per line.
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

# Times one command RUNS times (a fresh output path each run, substituted for OUT) and prints
# the median beside its target in seconds ("-" for none), with "ok" or "OVER".
over=0
bench() {
    local label=$1 target=$2; shift 2
    local times=()
    for ((r = 1; r <= RUNS; r++)); do
        local out="$WORK/$label-$r"
        local args=("${@//OUT/$out}")
        local t0 t1
        t0=$(date +%s.%N)
        "${args[@]}" >/dev/null 2>&1 || { echo "bench-export: $label failed: ${args[*]}" >&2; exit 1; }
        t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc -l)")
    done
    local m; m=$(printf '%s\n' "${times[@]}" | median)
    local verdict=""
    if [ "$target" != "-" ]; then
        if [ "$(echo "$m <= $target" | bc -l)" = 1 ]; then verdict="ok"; else verdict="OVER"; over=1; fi
    fi
    printf '%-22s %8s s   target %5s s  %s\n' "$label" "$m" "$target" "$verdict"
}

pages=$(grep -c '"image"' "$BOOK/book.json")
echo "export of $BOOK ($pages pages) with $PB, median of $RUNS runs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
bench alto 2 "$PB" export "$BOOK" --format alto --out OUT
bench hocr 2 "$PB" export "$BOOK" --format hocr --out OUT
bench iiif 2 "$PB" export "$BOOK" --format iiif --out OUT.json
bench cbz 2 "$PB" export "$BOOK" --format cbz --out OUT.cbz
bench epub-scans-only 2 "$PB" export "$BOOK" --format epub --out OUT.epub --no-cleartext
bench epub-cleartext 10 "$PB" export "$BOOK" --format epub --out OUT.epub
# ClearText editions with a cleared image per page, as `picturebook clear` leaves them in clear/
# (full-size PNGs; here the scans converted, which have the same size and weight as cleared pages).
cp -r "$BOOK" "$WORK/cleared"
mkdir -p "$WORK/cleared/clear"
for f in "$WORK"/cleared/*.jpg "$WORK"/cleared/*.png; do
    [ -f "$f" ] || continue
    stem=$(basename "${f%.*}")
    "$PB" convert "$f" "$WORK/cleared/clear/$stem.png" >/dev/null 2>&1
done
bench epub-cleartext-cleared 10 "$PB" export "$WORK/cleared" --format epub --out OUT.epub
ls -l "$WORK"/epub-cleartext-cleared-1.epub "$WORK"/epub-cleartext-1.epub "$WORK"/cbz-1.cbz | awk '{printf "%-30s %8.1f MiB\n", $NF, $5 / 1048576}' | sed "s|$WORK/||"

# Import back: the manifest beside the scans, as a library would hand it over.
cp -r "$BOOK" "$WORK/book"
"$PB" export "$WORK/book" --format iiif --out "$WORK/book/manifest.json" >/dev/null 2>&1
bench import-iiif - "$PB" import "$WORK/book/manifest.json" --out OUT
mkdir -p "$WORK/alto"
"$PB" export "$BOOK" --format alto --out "$WORK/alto" >/dev/null 2>&1
cp "$BOOK"/*.jpg "$WORK/alto/"
bench import-alto - "$PB" import "$WORK/alto" --out OUT
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $over
