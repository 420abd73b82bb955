#!/usr/bin/env bash
# `make test-sanitize`: the whole Swift test suite once under AddressSanitizer and once under
# ThreadSanitizer, each in its own scratch folder (.build/asan, .build/tsan) so the ordinary build
# is untouched. Slow (each is a full instrumented build plus a slower test run), so not part of
# `make test`; run it before a release and after touching the parallel code (analysis readings,
# in-fill side tasks, the reader's work pool and thumbnail queues).
#
#   Tools/test-sanitize.sh [address|thread]...   default: both
#   Extra arguments after -- go to `swift test` (e.g. -- --filter ReaderTests).
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do kinds+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#kinds[@]} -eq 0 ] && kinds=(address thread)
Tools/setup.sh
status=0
for k in "${kinds[@]}"; do
  case $k in address) dir=.build/asan ;; thread) dir=.build/tsan ;; *) echo "test-sanitize: unknown sanitizer '$k' (address, thread)" >&2; exit 2 ;; esac
  echo "test-sanitize: $k sanitizer ($dir)" >&2
  # halt_on_error: the first report fails the run instead of scrolling past.
  # PICTUREBOOK_SANITIZER names the sanitizer to the tests: the few that cannot mean anything
  # under it (see Documentation/Reliability.md, "Sanitizers") skip themselves on it.
  if PICTUREBOOK_SANITIZER=$k ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
     swift test --sanitize="$k" --scratch-path "$dir" "$@"; then
    echo "test-sanitize: $k: no reports" >&2
  else
    echo "test-sanitize: $k: FAILED" >&2
    status=1
  fi
done
exit $status
