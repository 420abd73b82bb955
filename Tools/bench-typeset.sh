#!/usr/bin/env bash
# Typesetting benchmark: fit a 60-word paragraph into a 600x400 box and draw it, Picturebook
# against Pillow + raqm (the usual Python way to shape text), same text, font and box, one run.
#
#   Tools/bench-typeset.sh [RUNS]      (default 200)
#
# Picturebook is timed in-process by the hidden `picturebook typeset --bench N` (shaping, bisection
# fit and drawing each run, after a warm-up, so the face and glyph caches are warm); Pillow by
# Tools/bench-typeset.py in a venv under .build/ (pip installs Pillow, whose manylinux wheel carries
# raqm and loads the system libfribidi). Ratio = Picturebook / Pillow: below 1.0 is faster.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
font=/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf
work=.build/bench-typeset
mkdir -p "$work"

cat >"$work/paragraph.txt" <<'TEXT'
Once upon a time, at the edge of a quiet forest, there lived a fox who loved the river. Every morning she ran down the hill, past the old oak, to watch the silver fish jump in the sun. One day a small boat drifted by, and in it sat a lost duckling who could not find her way home.
TEXT
words=$(wc -w <"$work/paragraph.txt")

echo "building picturebook (release)…" >&2
swift build -c release --product picturebook --scratch-path .build >/dev/null
bin=.build/release/picturebook

if [ ! -x "$work/venv/bin/python" ]; then
  echo "creating $work/venv with Pillow…" >&2
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q --disable-pip-version-check pillow
fi

pb=$("$bin" typeset --text-file "$work/paragraph.txt" --lang en --box 600x400 --min-size 12 --max-size 96 \
  --font "$font" --bench "$runs" --out "$work/picturebook.png")
py=$("$work/venv/bin/python" Tools/bench-typeset.py "$work/paragraph.txt" "$font" 600 400 12 96 "$runs" "$work/pillow.png")

field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }
pb_fit=$(field fit_median_ms "$pb")
pb_ms=$(field fit_draw_median_ms "$pb")
py_ms=$(field median_ms "$py")
echo "text: $words words, box 600x400, font $(basename "$font"), sizes 12…96 px, $runs runs"
echo "picturebook: $pb"
echo "pillow+raqm: $py"
python3 - "$pb_fit" "$pb_ms" "$py_ms" <<'PY'
import sys
fit, pb, py = map(float, sys.argv[1:])
print(f"picturebook fit (shape + bisect + break): {fit:.3f} ms   fit + draw: {pb:.3f} ms (target <= 2 ms)")
print(f"pillow+raqm fit + draw:                   {py:.3f} ms")
print(f"ratio picturebook / pillow (fit + draw):  {pb / py:.3f}")
PY
echo "images: $work/picturebook.png $work/pillow.png"
