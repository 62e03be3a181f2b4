#!/usr/bin/env bash
# Runs every fuzz target of build-sanitize/ (scripts/test.sh --sanitize builds it) for SECONDS
# each (default 60), over its corpus and seeds, and prints each target's executions and
# findings. A finding leaves crash-*/timeout-*/oom-* files in build-sanitize/fuzz/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(topology model scenario overrides gpu_profile nccl_calibration gemm_csv layer_json nccl_log training_cases degrade
           shard measured)
fi
status=0
for target in "${targets[@]}"; do
  # The seed folders CTest passes (fuzz/CMakeLists.txt), read back from its test list.
  command=$(ctest --test-dir build-sanitize -R "^fuzz\.${target}\$" -N -V | sed -n 's/^[0-9]*: Test command: //p')
  if [[ -z "$command" ]]; then echo "no fuzz target '$target' in build-sanitize" >&2; exit 2; fi
  eval "words=($command)"  # CTest prints each word in double quotes
  log="build-sanitize/fuzz/${target}.log"
  found=""
  (cd build-sanitize/fuzz && "${words[0]}" -max_total_time="$seconds" "${words[@]:2}") >"$log" 2>&1 || found=", FINDING: see $log"
  [[ -z "$found" ]] || status=1
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$target: ${runs:-?} executions in ${seconds} s${found}"
done
exit "$status"
