#!/usr/bin/env bash
# Benchmark: `picturebook export` of one sample book in every format, and `import` back, printing
# the median wall time of RUNS runs per format (the issue's targets: ≤ 2 s per format for a
# 28-page book, ≤ 10 s for EPUB with its ClearText editions).
#
#   Tools/bench-export.sh                          # Books/salmas-red-kite (28 pages), 5 runs
#   BOOK=Books/lighthouse-cat RUNS=3 Tools/bench-export.sh
#   CONFIG=debug SKIP_BUILD=1 Tools/bench-export.sh   # a build you already have
#
# Each run writes into a fresh folder, so nothing is reused between runs. The machine's load is
# printed: on a shared machine the figures move.
set -euo pipefail
cd "$(dirname "$0")/.."

BOOK=${BOOK:-Books/salmas-red-kite}
RUNS=${RUNS:-5}
CONFIG=${CONFIG:-release}

if [ -z "${SKIP_BUILD:-}" ]; then
    swift build -c "$CONFIG" --product picturebook >&2
fi
PB="$(swift build -c "$CONFIG" --show-bin-path)/picturebook"
WORK=$(mktemp -d /tmp/pb-bench-export-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Median of the run times (seconds) given on stdin, one per line.
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

# Times one command RUNS times (a fresh output path each run, substituted for OUT) and prints
# the median.
bench() {
    local label=$1; shift
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
    printf '%-22s %8s s\n' "$label" "$(printf '%s\n' "${times[@]}" | median)"
}

pages=$(grep -c '"image"' "$BOOK/book.json")
echo "export of $BOOK ($pages pages), $CONFIG build, median of $RUNS runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
bench alto "$PB" export "$BOOK" --format alto --out OUT
bench hocr "$PB" export "$BOOK" --format hocr --out OUT
bench iiif "$PB" export "$BOOK" --format iiif --out OUT.json
bench cbz "$PB" export "$BOOK" --format cbz --out OUT.cbz
bench epub-scans-only "$PB" export "$BOOK" --format epub --out OUT.epub --no-cleartext
bench epub "$PB" export "$BOOK" --format epub --out OUT.epub
ls -l "$WORK"/epub-1.epub "$WORK"/cbz-1.cbz | awk '{printf "%-22s %8.1f MiB\n", $NF, $5 / 1048576}' | sed "s|$WORK/||"

# Import back: the manifest beside the scans, as a library would hand it over.
cp -r "$BOOK" "$WORK/book"
"$PB" export "$WORK/book" --format iiif --out "$WORK/book/manifest.json" >/dev/null 2>&1
bench import-iiif "$PB" import "$WORK/book/manifest.json" --out OUT
mkdir -p "$WORK/alto"
"$PB" export "$BOOK" --format alto --out "$WORK/alto" >/dev/null 2>&1
cp "$BOOK"/*.jpg "$WORK/alto/"
bench import-alto "$PB" import "$WORK/alto" --out OUT
