#!/usr/bin/env bash
# The web reader in a real browser: starts `picturebook serve` on copies of the sample books (plus a
# broken book and a right-to-left copy, which the tests expect), runs Tests/Browser with pytest and
# Selenium against headless Chromium, and always stops the server. Exits with pytest's status.
#
#   Tools/test-browser.sh [pytest args]        e.g. -k popout, -x
#   PICTUREBOOK_URL=http://… Tools/test-browser.sh   test an already running reader instead
#   UPDATE_REFERENCE=1 Tools/test-browser.sh -k reference   re-record the reference screenshot
# Screenshots land in .build/browser-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=.build/venv-browser
[ -x "$venv/bin/pytest" ] || Tools/setup.sh --browser

tmp=$(mktemp -d "${TMPDIR:-/tmp}/picturebook-browser.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

if [ -z "${PICTUREBOOK_URL:-}" ]; then
  bin=.build/debug/picturebook
  # `swift build` takes a while even with nothing to do; skip it when no source is newer than the binary.
  if [ ! -x "$bin" ] || [ -n "$(find Sources Package.swift -newer "$bin" -print -quit)" ]; then
    swift build --scratch-path .build --product picturebook >/dev/null
    touch "$bin"  # a resource-only change rebuilds without relinking
  fi
  bin=$root/$bin
  mkdir -p "$tmp/books"
  cp -r Books/* "$tmp/books/"
  mkdir "$tmp/books/broken-book"
  printf '{ "format": "picturebook-book/1", "title": ' >"$tmp/books/broken-book/book.json"
  cp -r Books/good-morning-farm "$tmp/books/rtl-sample"
  /usr/bin/python3 - "$tmp/books/rtl-sample/book.json" <<'PY'
import json, sys
p = sys.argv[1]
book = json.load(open(p, encoding="utf-8"))
book["readingDirection"] = "rtl"
book["title"] = {"en": "Right-to-left sample"}
json.dump(book, open(p, "w", encoding="utf-8"), ensure_ascii=False, indent=2)
PY
  "$bin" serve "$tmp/books" --port 0 --cache "$tmp/cache" >"$tmp/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 300); do
    url=$(grep -o 'http://[^ ]*' "$tmp/server.log" | head -1 || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "test-browser: the server exited:" >&2; cat "$tmp/server.log" >&2; exit 1; }
    sleep 0.1
  done
  [ -n "${url:-}" ] || { echo "test-browser: no URL from the server after 30 s:" >&2; cat "$tmp/server.log" >&2; exit 1; }
  export PICTUREBOOK_URL=$url
fi

echo "test-browser: reader at $PICTUREBOOK_URL"
status=0
"$root/$venv/bin/python" -m pytest -p no:cacheprovider -q Tests/Browser "$@" || status=$?
if [ "$status" -ne 0 ] && [ -f "$tmp/server.log" ]; then
  echo "--- server log (tail)"; tail -n 40 "$tmp/server.log"
fi
exit "$status"
