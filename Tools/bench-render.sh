#!/usr/bin/env bash
# Render benchmark: a landscape ClearText spread on a current phone (2556×1179 pixels), from the
# book's files to PNG bytes, against vips joining the same two cleared pages and saving a PNG.
#
#   Tools/bench-render.sh [RUNS] [BOOK] [PAGES]      (defaults: 20, Books/salmas-red-kite, 2-3)
#
# Picturebook is timed in-process by the hidden `picturebook render --bench N`: each run starts
# with an empty page cache, so it decodes both cleared pages (PNG), resamples them to the
# screen, lays out and draws the text, and encodes the PNG at the fast level (`.fast`: up filter, the own single-pass deflate of Codecs/FastDeflate.swift).
# The cleared pages are stand-ins made from the scans (BOOK/clear/ may not exist yet): a copy of
# the book in .build/bench-render with clear/<page>.png written by vips.
# vips is timed by hyperfine, two ways: `arrayjoin` + pngsave compression=1 of the two cleared
# pages already resized to the screen's page size (the same compose-and-save work), and of the
# full-size pages (no resampling, 2.4× the pixels to save).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
book=${2:-Books/salmas-red-kite}
pages=${3:-2-3}
work=.build/bench-render
rm -rf "$work" && mkdir -p "$work/book/clear" "$work/out"

echo "building picturebook (release)…" >&2
swift build -c release --product picturebook --scratch-path .build >/dev/null
bin=.build/release/picturebook

cp "$book"/book.json "$work/book/"
for f in "$book"/page-*.jpg; do ln -s "$(realpath "$f")" "$work/book/"; done
a=${pages%-*}; b=${pages#*-}
for n in $(seq "$a" "$b"); do
  stem=$(printf 'page-%03d' "$n")
  vips copy "$book/$stem.jpg" "$work/book/clear/$stem.png[compression=1]"
done

pb=$("$bin" render "$work/book" --device phone --orientation landscape --mode cleartext --lang en \
  --pages "$pages" --out "$work/out" --bench "$runs")
echo "$pb"

# vips on pages already at screen size: 1158 px high, as the landscape phone spread shows them.
sa=$(printf 'page-%03d' "$a"); sb=$(printf 'page-%03d' "$b")
vips thumbnail "$work/book/clear/$sa.png" "$work/a.png" 10000 --height 1158
vips thumbnail "$work/book/clear/$sb.png" "$work/b.png" 10000 --height 1158
hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/vips.json" \
  "vips arrayjoin \"$work/a.png $work/b.png\" $work/vips-screen.png[compression=1]" \
  "vips arrayjoin \"$work/book/clear/$sa.png $work/book/clear/$sb.png\" $work/vips-full.png[compression=1]" >/dev/null
read -r vs vf < <(python3 -c "
import json; r=json.load(open('$work/vips.json'))['results']
print(' '.join('%.1f' % (x['median']*1000) for x in r))")
pbm=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$pb")
echo "vips arrayjoin+pngsave (screen-sized pages): median $vs ms"
echo "vips arrayjoin+pngsave (full-size pages):    median $vf ms"
python3 -c "print('ratio picturebook / vips: %.2f (screen-sized), %.2f (full-size); target ≤ 80 ms: %s' % ($pbm/$vs, $pbm/$vf, 'met' if $pbm <= 80 else 'NOT met'))"
