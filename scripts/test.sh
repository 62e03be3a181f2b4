#!/usr/bin/env bash
# Set up, build, and run every test through CTest (labels: unit, golden, python, docs,
# oracle-slow, simgrid, fuzz; docs/development.md says what each holds and what it costs).
#
#   scripts/test.sh              Release build in build/, every test.
#   scripts/test.sh --sanitize   ASan + UBSan build in build-sanitize/ (clang, -O1): every C++ test
#                                but the oracle-slow ones (which the Release half runs), then a
#                                bounded run of every libFuzzer target over its seed corpus
#                                (CTWIN_FUZZ_SECONDS each, default 10). See docs/hardening.md.
#                                The Python module is left out: an ASan library cannot load into
#                                an interpreter built without it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/phases.sh

# CTest starts the tests that took longest last time first; on a fresh clone it has no record,
# so the committed one (tests/ctest-costs/) stands in until the first run writes its own.
seed_costs() {
  local dir="$1" costs="$2"
  mkdir -p "$dir/Testing/Temporary"
  [[ -f "$dir/Testing/Temporary/CTestCostData.txt" ]] || cp "$costs" "$dir/Testing/Temporary/CTestCostData.txt"
}

if [[ "${1:-}" == "--sanitize" ]]; then
  phase setup bash scripts/setup.sh
  fuzz_seconds="${CTWIN_FUZZ_SECONDS:-10}"
  build() {
    configure build-sanitize -DCMAKE_CXX_COMPILER=clang++ -DCTWIN_FUZZ=ON -DCTWIN_FUZZ_SECONDS="$fuzz_seconds" \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCTWIN_BUILD_BENCH=OFF -DCTWIN_BUILD_PYTHON=OFF \
      -DPython3_EXECUTABLE=/usr/bin/python3
    cmake --build build-sanitize -j "$(nproc)"
  }
  phase sanitize-build build
  seed_costs build-sanitize tests/ctest-costs/sanitize.txt
  # Leaks are findings too; a report makes the process exit non-zero and its test fail.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  phase sanitize-tests ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" -LE 'oracle-slow|python|docs|fuzz'
  phase fuzz ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" -L fuzz
  exit 0
fi

bash scripts/build.sh
seed_costs build tests/ctest-costs/release.txt
phase tests ctest --test-dir build --output-on-failure -j "$(nproc)"
