#!/usr/bin/env bash
# Benchmark: `picturebook ocr` (box by box, normalised crops, one Tesseract engine per core)
# against plain whole-page `tesseract`, in the same run, on the sample books in Books/ (their text
# is known) and on the Huck Finn scans transcribed in Benchmarks/OCR/ (boxes found by `picturebook
# analyze`). Prints character error rates and time per page on one core; Tools/bench-ocr.py says
# exactly how each figure is made.
#
#   Tools/bench-ocr.sh                 # release build, every sample book, the transcribed scans
#   BIN=.build/debug/picturebook Tools/bench-ocr.sh
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh --bench >/dev/null
BIN=${BIN:-.build/release/picturebook}
if [ "$BIN" = .build/release/picturebook ]; then swift build -c release --product picturebook 2>&1 | tail -1; fi
echo "tesseract $(tesseract --version 2>&1 | head -1 | cut -d' ' -f2); load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
exec python3 Tools/bench-ocr.py "$BIN" "$@"
