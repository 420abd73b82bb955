#!/usr/bin/env bash
# `make demo`: run Picturebook on the sample books. Called by the Makefile with the built binary.
set -euo pipefail
bin=${1:-.build/release/picturebook}
cd "$(dirname "$0")/.."

shopt -s nullglob
books=(Books/*/)
if ((${#books[@]} == 0)); then
  echo "demo: no sample books in Books/ yet; showing the shared real scans instead" >&2
  books=(../shared/realdata/*/images/)
fi
for book in "${books[@]}"; do
  echo "== ${book%/}"
  "$bin" info "$book"
done
