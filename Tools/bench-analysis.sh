#!/usr/bin/env bash
# Text-detection benchmark (issue 5): the standard mixed corpus (BenchmarkCorpus.standard(): seeds
# 1001-1004, 12 pages each, 1600x2000), scored with Tools/bench-analysis.py, next to Tesseract's
# layout analysis (`--psm 3`, tsv level-2 blocks) on the same pages, with timings.
#
#   Tools/bench-analysis.sh                 build (release), generate the corpus if not cached, score both
#   Tools/bench-analysis.sh --no-tesseract  ours only (seconds instead of minutes)
#   CORPUS=hard Tools/bench-analysis.sh     the hard corpus (seeds 2001, 2002)
#   CORPUS=heldout Tools/bench-analysis.sh  mixed difficulty, seeds 3001, 3002 (held out from tuning)
#
# The corpus is cached under .build/corpus/<difficulty>-1600x2000-seed-<seed>/ (the generator is
# deterministic, so the seed is the key; delete the folder after changing the generator).
set -euo pipefail
cd "$(dirname "$0")/.."

tesseract=1
for arg in "$@"; do
  case "$arg" in
    --no-tesseract) tesseract=0 ;;
    *) echo "bench-analysis: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

case "${CORPUS:-standard}" in
  hard) difficulty=hard; seeds=(2001 2002) ;;
  heldout) difficulty=mixed; seeds=(3001 3002) ;;  # never tuned on: a check against overfitting
  *) difficulty=mixed; seeds=(1001 1002 1003 1004) ;;
esac

if ((tesseract)); then Tools/setup.sh --bench; fi
swift build -c release --product picturebook >/dev/null
bin=.build/release/picturebook

corpora=() ours=() tess=() times=()
for s in "${seeds[@]}"; do
  dir=.build/corpus/$difficulty-1600x2000-seed-$s
  if [ ! -f "$dir/truth.json" ]; then
    rm -rf "$dir"
    "$bin" generate --out "$dir" --pages 12 --seed "$s" --difficulty "$difficulty" --size 1600x2000 --no-clean
  fi
  # --jobs 1: one page at a time, so each page's time is its latency with both cores working on it.
  # A scratch copy of book.json keeps the corpus's own (truth-as-librarian) manifest out of the way.
  "$bin" analyze "$dir" --json --dry-run --replace --jobs 1 > "$dir/analysis.json"
  corpora+=("$dir") ours+=("$dir/analysis.json")
  if ((tesseract)); then
    mkdir -p "$dir/tesseract"
    : > "$dir/tesseract/times.txt"
    for img in "$dir"/page-*.jpg; do
      base=$(basename "$img" .jpg)
      t0=$(date +%s.%N)
      tesseract "$img" "$dir/tesseract/$base" --psm 3 tsv >/dev/null 2>&1
      t1=$(date +%s.%N)
      echo "$t1 - $t0" | bc >> "$dir/tesseract/times.txt"
    done
    tess+=("$dir/tesseract") times+=("$dir/tesseract/times.txt")
  fi
done

if ((tesseract)); then
  python3 Tools/bench-analysis.py "${corpora[@]}" --ours "${ours[@]}" --tesseract "${tess[@]}" --tesseract-times "${times[@]}"
else
  python3 Tools/bench-analysis.py "${corpora[@]}" --ours "${ours[@]}"
fi
