#!/usr/bin/env bash
# Peak memory of decodes against issue #18's bound (1.1 x the decoded image + 64 MiB, whatever the
# file declares): see Tools/bench-decode-memory.py. Pillow comes from the browser tests' venv.
#   Tools/bench-decode-memory.sh [--bin PATH] [--quick] [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh --browser --bench >/dev/null  # Pillow; /usr/bin/time (package time)
exec .build/venv-browser/bin/python Tools/bench-decode-memory.py "$@"
