#!/usr/bin/env bash
# `make demo`: the whole pipeline on the sample books, on copies under .build/demo so Books/ stays
# as shipped. Called by the Makefile with the built binary. Ends by serving the prepared books to a
# browser (foreground, Ctrl-C stops it); DEMO_NO_SERVE=1 stops after the pipeline instead.
# DEMO_PORT picks the port (default 8080; 0 = any free port).
set -euo pipefail
bin=${1:-.build/release/picturebook}
cd "$(dirname "$0")/.."
bin=$(realpath "$bin")
out=.build/demo
rm -rf "$out"
mkdir -p "$out/books"

for src in Books/*/; do
  name=$(basename "$src")
  book="$out/books/$name"
  cp -r "$src" "$book"
  echo "== $name"
  "$bin" validate "$book"
  "$bin" analyze "$book"                     # text blocks, ink masks, panoramic spreads
  "$bin" clear "$book"                       # ClearText: the printed text removed
  "$bin" popout "$book" --scale 2            # PopoutText crops, magnified
  "$bin" render "$book" --device phone --orientation landscape --mode cleartext --pages 2-3 --out "$out/screens/$name"
done
"$bin" thumbs "$out/books" --out "$out/thumbs"

cat <<EOT

Prepared. Look at:
  $out/books/<book>/clear/      pages with their printed text removed
  $out/books/<book>/popout/     magnified text blocks
  $out/screens/<book>/          a landscape ClearText spread on a phone (2556×1179)
  $out/thumbs/                  page thumbnails, overview grids and the library grid
EOT

if [ "${DEMO_NO_SERVE:-}" = "1" ]; then exit 0; fi
echo
echo "Starting the reader on $out/books (Ctrl-C to stop). Open the URL below in a browser;"
echo "in the browser's device toolbar a phone size shows the phone layout."
exec "$bin" serve "$out/books" --port "${DEMO_PORT:-8080}" --cache "$out/cache"
