#!/usr/bin/env bash
# Regenerates the four sample books in Books/ from the story files in Tools/books/ (each story
# fixes its seed, page size and text, so the output is the same on every run), then redraws the
# contact sheets in Documentation/images/.
#
#   Tools/make-books.sh                 build picturebook (release) and regenerate everything
#   Tools/make-books.sh path/to/picturebook   use an already built binary
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-}
if [ -z "$bin" ]; then
  swift build -c release --product picturebook
  bin=.build/release/picturebook
fi

# story file → book folder
books=(
  "board:good-morning-farm"
  "bilingual:salmas-red-kite"
  "mongolian:little-horse"
  "historic:lighthouse-cat"
)

mkdir -p Books Documentation/images
for entry in "${books[@]}"; do
  story=${entry%%:*}
  name=${entry#*:}
  out=Books/$name
  tmp=Books/.$name.tmp
  rm -rf "$tmp"
  "$bin" generate --story "Tools/books/$story.json" --out "$tmp" --no-clean
  # The glossary was checked by hand (Documentation/Glossary.md); the generator does not make it,
  # so a rebuilt book keeps the old one.
  if [ -f "$out/book.json" ]; then
    python3 - "$out/book.json" "$tmp/book.json" <<'PY'
import json, sys
old, new = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:3])
if old.get("glossary"):
    new["glossary"] = old["glossary"]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(new, f, ensure_ascii=False, indent=2)
        f.write("\n")
PY
  fi
  rm -rf "$out"
  mv "$tmp" "$out"
  if command -v montage >/dev/null; then
    # A contact sheet of every page, for Documentation/Generator.md.
    montage "$out"/page-*.jpg -tile 7x -geometry 160x160+4+4 -background '#f4f1ea' \
      -depth 8 "PNG24:Documentation/images/$name-contact.png"
  fi
done

du -sh Books/*
total_kb=$(du -sk Books | cut -f1)
echo "Books/ total: $((total_kb / 1024)) MB"
if ((total_kb > 25 * 1024)); then
  echo "make-books: Books/ is over the 25 MB budget" >&2
  exit 1
fi
