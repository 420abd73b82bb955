#!/usr/bin/env bash
# `make fuzz`: builds picturebook-fuzz with libFuzzer and AddressSanitizer and runs each harness
# over its seed corpus (Tests/Fuzz/Corpus/<harness>), copied to a scratch folder so the inputs
# libFuzzer adds never land in the repository. A crash leaves its input in .build/fuzz/findings/;
# add it to Tests/Fuzz/Corpus/<harness>/ (after fixing the bug) and FuzzRegressionTests runs it
# from then on.
#
#   Tools/fuzz.sh [harness...]          default: png jpeg book request tiff jp2 pdf
#   FUZZ_SECONDS=600 Tools/fuzz.sh png  time per harness (default 60)
#   FUZZ_RUNS=1000000 Tools/fuzz.sh     executions per harness instead of time
#   FUZZ_JOBS=2                         libFuzzer worker processes per harness (default 1)
#   FUZZ_NO_BUILD=1                     run the harness binary already built (sources unchanged)
#   FUZZ_CONFIG=release                 optimised build (still ASan and coverage-guided), several
#                                       times the executions a second of the debug build; debug
#                                       (the default) gives clearer stack traces for a finding
# Prints one summary line per harness: executions, seconds, executions per second, findings.
set -euo pipefail
cd "$(dirname "$0")/.."
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(png jpeg book request tiff jp2 pdf)
scratch=.build/fuzz
mkdir -p "$scratch/findings"

config=${FUZZ_CONFIG:-debug}
case "$config" in debug|release) ;; *) echo "fuzz: FUZZ_CONFIG must be debug or release, not '$config'" >&2; exit 2 ;; esac
bin=$scratch/$config/picturebook-fuzz
if [ -n "${FUZZ_NO_BUILD:-}" ] && [ -x "$bin" ]; then
  echo "fuzz: FUZZ_NO_BUILD set, running the existing $bin" >&2
else
  echo "fuzz: building picturebook-fuzz with -sanitize=fuzzer,address ($config, $scratch)" >&2
  swift build --product picturebook-fuzz -c "$config" --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >&2
fi

status=0
for h in "${harnesses[@]}"; do
  seeds=Tests/Fuzz/Corpus/$h
  [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds (harnesses: png jpeg book request tiff jp2 pdf)" >&2; exit 2; }
  work=$scratch/corpus/$h
  mkdir -p "$work"
  cp -n "$seeds"/* "$work"/ 2>/dev/null || true
  limit=(-max_total_time="${FUZZ_SECONDS:-60}")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  # FUZZ_ASAN_OPTIONS: extra AddressSanitizer options (e.g. detect_leaks=0 to look past a leak).
  export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-}
  log=$scratch/$h.log
  start=$(date +%s)
  set +e
  FUZZ_TARGET=$h FUZZ_BOOKS=$PWD/Books "$bin" "$work" "${limit[@]}" -rss_limit_mb=1024 -max_len=65536 \
    -timeout=60 -artifact_prefix="$scratch/findings/$h-" -print_final_stats=1 \
    ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} >"$log" 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s+=$2} END {print s+0}')
  found=$(ls "$scratch/findings" 2>/dev/null | grep -c "^$h-" || true)
  printf '%-8s %10s executions  %5ss  %8s exec/s  findings: %s  (exit %s, log %s)\n' \
    "$h" "$runs" "$secs" "$(( runs / (secs > 0 ? secs : 1) ))" "$found" "$rc" "$log"
  [ "$rc" -eq 0 ] || status=1
done
exit $status
