#!/usr/bin/env bash
# ClearText in-fill benchmark: PSNR / MAE inside the truth text boxes (cleared vs. clean
# background) per placement style, in three modes — truth boxes with the true ink alone (the
# in-fill by itself), truth boxes with Picturebook's own mask estimate, and Picturebook's own detected boxes
# and masks (`analyze` then `clear`, the real pipeline) — Picturebook beside OpenCV cv2.inpaint (Telea, NS, radius 3)
# given the same masks, and in-fill time per page (release, median) with the ratio to OpenCV.
#
#   Tools/bench-infill.sh            standard corpus (48 pages, 1600×2000, mixed difficulty)
#   Tools/bench-infill.sh --hard     the hard corpus as well
#   Tools/bench-infill.sh --hard-only the hard corpus alone
#   Tools/bench-infill.sh --illustrated       the corpus from real illustrations as well (`synth2` of
#       Documentation/Evaluation.md: Benchmarks/Illustrations with text typeset over and beside
#       them, 24 pages, seed 5001; no in-fill or mask rule was chosen on it)
#   Tools/bench-infill.sh --illustrated-only  that corpus alone
#   ORACLE_ONLY=1 Tools/bench-infill.sh   only the truth-mask mode (quickest, the in-fill alone)
#   NO_DETECTOR=1 Tools/bench-infill.sh   the two truth-box modes, no `analyze`
#   DETECTOR_ONLY=1 Tools/bench-infill.sh the whole-pipeline mode alone
#   PICTUREBOOK_BIN=/path/to/picturebook Tools/bench-infill.sh   score that binary (no build; for
#       before/after comparisons; a binary outside .build needs PICTUREBOOK_DETECTOR_DIR for
#       the learned detector). Its work folders get the binary's folder name as a suffix.
#
# The corpus is generated once and cached under .build/corpus/seed-<seed>/ (the layout
# BenchmarkCorpus.write uses; the analysis benchmark shares it). OpenCV comes from PyPI into a
# venv under .build/bench-venv.
set -euo pipefail
cd "$(dirname "$0")/.."

HARD=0 STANDARD=1 ILLUSTRATED=0
case "${1:-}" in
    --hard) HARD=1 ;;
    --hard-only) HARD=1 STANDARD=0 ;;
    --illustrated) ILLUSTRATED=1 ;;
    --illustrated-only) ILLUSTRATED=1 STANDARD=0 ;;
    "") ;;
    *) echo "bench-infill: unknown option '$1' (expected --hard, --hard-only, --illustrated or --illustrated-only)" >&2; exit 2 ;;
esac

if [[ -n ${PICTUREBOOK_BIN:-} ]]; then
    PB=$PICTUREBOOK_BIN
    [[ -x $PB ]] || { echo "bench-infill: PICTUREBOOK_BIN=$PB is not an executable" >&2; exit 2; }
    TAG=-$(basename "$(dirname "$PB")")
else
    swift build -c release --scratch-path .build --product picturebook >&2
    PB=.build/release/picturebook
    TAG=
fi

VENV=.build/bench-venv
if [[ ! -x $VENV/bin/python ]] || ! $VENV/bin/python -c "import cv2, numpy, PIL" 2>/dev/null; then
    python3 -m venv $VENV
    $VENV/bin/pip install --quiet opencv-python-headless numpy Pillow
fi

generate() {  # seed difficulty
    local dir=.build/corpus/seed-$1
    if [[ ! -f $dir/truth.json ]]; then
        $PB generate --out "$dir" --pages 12 --seed "$1" --difficulty "$2" --size 1600x2000 >&2
    fi
}

# The corpus from real illustrations, in the folder Tools/bench-unseen.sh uses for it (keyed by the
# illustrations' checksums: new plates make a new corpus), with its clean backgrounds.
ILL_SEED=5001 ILL_PAGES=24
ill_key=$(sha256sum < Benchmarks/Illustrations/sources.json | cut -c1-12)
ILL_DIR=.build/corpus/illustrated-1600x2000-seed-$ILL_SEED-p$ILL_PAGES-$ill_key
generate_illustrated() {
    if [[ ! -f $ILL_DIR/truth.json || ! -d $ILL_DIR/clean ]]; then
        rm -rf "$ILL_DIR"
        $PB generate --illustrations Benchmarks/Illustrations --out "$ILL_DIR" --pages $ILL_PAGES \
            --seed $ILL_SEED --difficulty mixed --size 1600x2000 >&2
    fi
}

# A copy of a corpus set as a librarian would start it: the scans (linked) and a book.json with no
# text boxes, so `analyze` treats every page as unreviewed and its boxes and masks are all its own.
detector_copy() {  # corpus dir
    local src=$1 dir=$2
    mkdir -p "$dir"
    for f in "$src"/page-*.jpg; do ln -s "$(realpath "$f")" "$dir/"; done
    python3 - "$src/book.json" "$dir/book.json" <<'PY'
import json, sys
book = json.load(open(sys.argv[1]))
book.pop("spreads", None)
for page in book["pages"]:
    page["textBoxes"] = []
json.dump(book, open(sys.argv[2], "w"), ensure_ascii=False, indent=2)
PY
    $PB analyze "$dir" ${ANALYZE_ARGS:-} >&2
}

run_mode() {  # label mode-name mask-source(estimate|oracle|detector) corpus-dirs...
    local label=$1 mode=$2 source=$3
    shift 3
    local work=.build/bench-infill/$label-$source$TAG
    rm -rf "$work"
    mkdir -p "$work"
    local corpora=() cleared=() masks=() books=()
    for corpus in "$@"; do
        local s
        s=$(basename "$corpus")
        s=${s#seed-}   # clear-1001 etc., as Tools/diag-infill.py reads them
        corpora+=("$corpus")
        cleared+=("$work/clear-$s")
        masks+=("$work/masks-$s")
        local maskopt=() book=$corpus
        if [[ $source == oracle ]]; then
            $VENV/bin/python Tools/bench-infill.py oracle "$corpus" "$work/ink-$s"
            maskopt=(--mask-dir "$work/ink-$s" --mask-only)
        elif [[ $source == detector ]]; then
            book=$work/book-$s
            detector_copy "$corpus" "$book"   # clear then finds the detector's masks in $book/masks
            books+=("$book")
        fi
        # One page at a time so the timing is the in-fill's own (it uses both cores inside).
        $PB clear "$book" --out "$work/clear-$s" --fill-masks "$work/masks-$s" \
            --stats "$work/stats.jsonl" --jobs 1 --force "${maskopt[@]}" ${CLEAR_ARGS:-} >&2
    done
    $VENV/bin/python Tools/bench-infill.py --mode "$label: $mode" \
        --corpora "${corpora[@]}" --cleared "${cleared[@]}" --masks "${masks[@]}" \
        --stats "$work/stats.jsonl" --json "$work/scores.json" ${books[@]:+--books "${books[@]}"}
}

run_set() {  # label corpus-dirs...
    local label=$1
    shift
    [[ ${ESTIMATE_ONLY:-0} == 1 || ${DETECTOR_ONLY:-0} == 1 ]] || run_mode "$label" "truth boxes + true ink alone (scan − clean ≥ 40, no estimate added): the in-fill by itself" oracle "$@"
    [[ ${ORACLE_ONLY:-0} == 1 || ${DETECTOR_ONLY:-0} == 1 ]] || run_mode "$label" "truth boxes + own mask estimate (InkMask)" estimate "$@"
    [[ ${ORACLE_ONLY:-0} == 1 || ${NO_DETECTOR:-0} == 1 ]] || run_mode "$label" "Picturebook's own detected boxes + ink masks (analyze, then clear)" detector "$@"
}

if [[ $STANDARD == 1 ]]; then
    for s in 1001 1002 1003 1004; do generate $s mixed; done
    run_set standard .build/corpus/seed-1001 .build/corpus/seed-1002 .build/corpus/seed-1003 .build/corpus/seed-1004
fi
if [[ $HARD == 1 ]]; then
    for s in 2001 2002; do generate $s hard; done
    run_set hard .build/corpus/seed-2001 .build/corpus/seed-2002
fi
if [[ $ILLUSTRATED == 1 ]]; then
    generate_illustrated
    run_set illustrated "$ILL_DIR"
fi
