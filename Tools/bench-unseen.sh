#!/usr/bin/env bash
# Cross-corpus text-detection benchmark (issue 17, "measure on what you did not tune on"): runs
# Picturebook's analyze (learned and classical detectors), PaddleOCR PP-OCRv4's detector (rapidocr-onnxruntime) and Tesseract 5 on
#   real   Benchmarks/RealCorpus (hand-checked real picture books)
#   heldout Benchmarks/HeldOut (hand-checked real picture books, held out: only ever scored)
#   fresh  Benchmarks/Fresh (hand-checked real picture books made 1 December 2026: only ever scored)
#   ndl    ../shared/realdata/ndl-docl-dev (NDL scans with VOC truth; never tuned on)
#   synth  our own generator, 20 pages, seed 4001 (the kind of corpus the detector was tuned on)
#   synth2 synthetic from real illustrations: Benchmarks/Illustrations with text typeset over and
#          beside them (`generate --illustrations`), 24 pages, seed 5001 (never tuned on)
#   plates text-free real plates: Benchmarks/Illustrations (the painted-shape rule was decided on
#          it) and Benchmarks/TextFree/tom-kitten (held out); every box there is false
# and prints one table with the corpora side by side (Tools/bench-unseen.py scores them).
#
#   Tools/bench-unseen.sh                   everything (minutes: Tesseract is the slow part)
#   NDL=/path/to/ndl-docl-dev Tools/bench-unseen.sh
#   Tools/bench-unseen.sh --no-setup        do not call Tools/setup.sh --ocr (fully offline)
#   Tools/bench-unseen.sh --fresh           rerun the peers too (their cached outputs are dropped)
#   Tools/bench-unseen.sh --peers-only      run only PP-OCRv4 and Tesseract on the real corpora, NDL and the plates (no build)
#   ANALYZE_ARGS='--set read.enabled=0' Tools/bench-unseen.sh   extra options for the learned analyze
#
# Detector outputs go to .build/bench-unseen/<corpus>/<set>/. Picturebook's are redone on every run
# (the detector may have changed); the peers' are kept once complete (they do not change, and they
# are the slow part), unless --fresh. The synthetic corpus is cached under .build/corpus/ like
# bench-analysis.sh's (the generator is deterministic, so the seed is the key).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

setup=1 fresh=0 peers_only=0
for arg in "$@"; do
  case "$arg" in
    --no-setup) setup=0 ;;
    --fresh) fresh=1 ;;
    --peers-only) peers_only=1 ;;
    *) echo "bench-unseen: unknown option '$arg' (expected --no-setup, --fresh or --peers-only)" >&2; exit 2 ;;
  esac
done

ndl=${NDL:-$root/../shared/realdata/ndl-docl-dev}
[ -d "$ndl" ] || ndl=/work/shared/realdata/ndl-docl-dev
if [ ! -d "$ndl" ]; then echo "bench-unseen: NDL corpus not found at $ndl (set NDL=...)" >&2; exit 1; fi
real=$root/Benchmarks/RealCorpus
heldout=$root/Benchmarks/HeldOut
fresh_corpus=$root/Benchmarks/Fresh
synth_seed=4001 synth_pages=20
synth2_seed=5001 synth2_pages=24

if ((setup)); then Tools/setup.sh --ocr --detector; fi
py=.build/venv-ocr/bin/python
if [ ! -x "$py" ]; then echo "bench-unseen: $py missing; run Tools/setup.sh --ocr" >&2; exit 1; fi
command -v tesseract >/dev/null || { echo "bench-unseen: tesseract missing; run Tools/setup.sh --ocr" >&2; exit 1; }
work=.build/bench-unseen
if ((fresh)); then rm -rf "$work"; fi

# One set = a folder of page images (symlinks, so analyze never writes next to the corpus) run
# through all three detectors.
# The printed language is what a librarian gives analyze for a bare folder (`--language`): the
# picture books are English or German (Latin script, the default `en` stands for both), NDL's
# scans Japanese.
run_set() { # corpus set source_dir [language]
  local dir=$work/$1/$2 src=$3 lang=${4:-en}
  rm -rf "$dir/images"
  mkdir -p "$dir/images"
  for img in "$src"/*.jpg "$src"/*.jpeg "$src"/*.png; do
    if [ -e "$img" ]; then ln -s "$(cd "$(dirname "$img")" && pwd)/$(basename "$img")" "$dir/images/"; fi
  done
  echo "bench-unseen: $1/$2 ($(ls "$dir/images" | wc -l) pages)" >&2
  if ((!peers_only)); then
    # --jobs 1: one page at a time, so each page's time is its latency with both cores on it.
    # Both of Picturebook's detectors: the learned one (the default once installed) and the
    # classical one it falls back to.
    "$bin" analyze "$dir/images" --detector learned --language "$lang" --json --dry-run --replace --no-masks --jobs 1 ${ANALYZE_ARGS:-} >"$dir/ours.json.tmp"
    mv "$dir/ours.json.tmp" "$dir/ours.json"
    "$bin" analyze "$dir/images" --detector classical --language "$lang" --json --dry-run --replace --no-masks --jobs 1 >"$dir/ours-classical.json.tmp"
    mv "$dir/ours-classical.json.tmp" "$dir/ours-classical.json"
  fi
  [ -f "$dir/ppocr.json" ] || "$py" Tools/bench-unseen-ppocr.py "$dir/images" "$dir/ppocr.json"
  if [ ! -f "$dir/tesseract/done" ]; then
    rm -rf "$dir/tesseract"
    mkdir -p "$dir/tesseract"
    for img in "$dir"/images/*; do
      local base t0 t1; base=$(basename "${img%.*}")
      t0=$(date +%s.%N)
      tesseract "$img" "$dir/tesseract/$base" --psm 3 tsv >/dev/null 2>&1 || echo "bench-unseen: tesseract failed on $img" >&2
      t1=$(date +%s.%N)
      printf '%s\t%s\n' "$base" "$(echo "$t1 - $t0" | bc)" >>"$dir/tesseract/times.tsv"
    done
    touch "$dir/tesseract/done"  # only a complete run is reused
  fi
}

if ((!peers_only)); then
  swift build -c release --product picturebook >/dev/null
  bin=$root/.build/release/picturebook
  synth=.build/corpus/mixed-1600x2000-seed-$synth_seed-p$synth_pages
  if [ ! -f "$synth/truth.json" ]; then
    rm -rf "$synth"
    "$bin" generate --out "$synth" --pages "$synth_pages" --seed "$synth_seed" --difficulty mixed --size 1600x2000 --no-clean >/dev/null
  fi
  # Keyed by the illustrations' checksums too: new plates make a new corpus.
  ill_key=$(cat Benchmarks/Illustrations/sources.json | sha256sum | cut -c1-12)
  synth2=.build/corpus/illustrated-1600x2000-seed-$synth2_seed-p$synth2_pages-$ill_key
  if [ ! -f "$synth2/truth.json" ]; then
    rm -rf "$synth2"
    "$bin" generate --illustrations Benchmarks/Illustrations --out "$synth2" --pages "$synth2_pages" \
      --seed "$synth2_seed" --difficulty mixed --size 1600x2000 >/dev/null
  fi
fi

for book in "$real"/*.json; do
  slug=$(basename "$book" .json)
  run_set real "$slug" "$real/$slug"
done
for book in "$heldout"/*.json; do
  slug=$(basename "$book" .json)
  run_set heldout "$slug" "$heldout/$slug"
done
for book in "$fresh_corpus"/*.json; do
  slug=$(basename "$book" .json)
  run_set fresh "$slug" "$fresh_corpus/$slug"
done
run_set ndl ndl "$ndl" ja
run_set plates illustrations "$root/Benchmarks/Illustrations"
for set in "$root"/Benchmarks/TextFree/*/; do
  run_set plates "$(basename "$set")" "${set%/}"
done
if ((peers_only)); then exit 0; fi

run_set synth synth "$synth"
run_set synth2 synth2 "$synth2"

echo "# Cross-corpus detection benchmark — $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo ' (+ uncommitted Sources changes)'), $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# Tesseract $(tesseract --version 2>&1 | head -1 | cut -d' ' -f2), $("$py" -c 'import importlib.metadata as m; print("rapidocr-onnxruntime", m.version("rapidocr-onnxruntime"), "/ onnxruntime", m.version("onnxruntime"))')"
python3 Tools/bench-unseen.py --work "$work" --real "$real" --heldout "$heldout" --fresh "$fresh_corpus" --ndl "$ndl" --synth "$synth" --synth2 "$synth2" \
  --plates "$root/Benchmarks/Illustrations" "$root"/Benchmarks/TextFree/*/
