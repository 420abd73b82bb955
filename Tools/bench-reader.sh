#!/usr/bin/env bash
# Load benchmark of the web reader (issue 9; not in CI): a release build serves a copy of Books/
# on a free loopback port; after the assets are warm, wrk hammers one cached page image and one
# book manifest for 20 s each (2 threads, 32 connections) and the script prints requests/s and
# p99 latency for both. Target: p99 < 50 ms.
#
#   Tools/bench-reader.sh                 the defaults above
#   DURATION=5s Tools/bench-reader.sh     a quicker look
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh --bench
build_log=$(mktemp)
swift build -c release --product picturebook >"$build_log" 2>&1 || { cat "$build_log" >&2; exit 1; }
rm -f "$build_log"
bin=$PWD/.build/release/picturebook
duration=${DURATION:-20s}

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cp -R Books "$work/books"
"$bin" serve "$work/books" --port 0 --cache "$work/cache" --no-warm >"$work/url" 2>"$work/log" &
server=$!
for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(sed -n 's/^Picturebook reader: //p' "$work/url")
[ -n "$url" ] || { echo "bench-reader: the server did not start:" >&2; cat "$work/log" >&2; exit 1; }

book=good-morning-farm
image="${url}api/books/$book/pages/2/scan?w=960"
manifest="${url}api/books/$book"
# Warm: the resized page is prepared by its first request, then served from the cache.
curl -sf -o /dev/null "$image"
curl -sf -o /dev/null "$manifest"
curl -sf -o /dev/null "${url}api/books/$book/pages/2/thumb?size=2x"

run() {
  local name=$1 target=$2 out
  out=$(wrk -t2 -c32 -d"$duration" --latency "$target")
  local rps p99 errors
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  errors=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out")
  printf '%-10s %10s req/s   p99 %8s   %s\n' "$name" "$rps" "$p99" "$target"
  [ -z "$errors" ] || echo "           $errors"
}

echo "wrk -t2 -c32 -d$duration --latency, release build, $(nproc) cores"
run image "$image"
run manifest "$manifest"
