#!/usr/bin/env bash
# Shows that `make test` does not depend on having the machine to itself (#18 item 11): runs the
# test command ROUNDS times (default 5) in a fresh clone while a second clone runs `make test`
# beside it the whole time. Exits 1 if any round of the first clone failed.
#
#   Tools/test-parallel.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/picturebook-parallel.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
git clone -q . "$work/a"
git clone -q . "$work/b"
# The clones sit beside ../shared like the repository does, when it exists.
[ -d ../shared ] && ln -s "$(cd ../shared && pwd)" "$work/shared"
( cd "$work/b" && while true; do make test >"$work/b.log" 2>&1 || echo "beside: a run failed (see $work/b.log)"; done ) &
failed=0
for r in $(seq 1 "$rounds"); do
  if ( cd "$work/a" && make test >"$work/a-$r.log" 2>&1 ); then
    echo "round $r/$rounds: passed"
  else
    echo "round $r/$rounds: FAILED (log $work/a-$r.log)"
    failed=$((failed + 1))
  fi
done
echo "test-parallel: $((rounds - failed))/$rounds rounds passed with a second make test running beside"
[ "$failed" -eq 0 ]
