#!/usr/bin/env bash
# Set up, build, and run every test (GoogleTest through CTest).
#
#   scripts/test.sh              Release build in build/, the whole suite.
#   scripts/test.sh --sanitize   ASan + UBSan build in build-sanitize/ (clang, -O1), the whole suite
#                                again, plus a bounded run of every libFuzzer target over its seed
#                                corpus (CTWIN_FUZZ_SECONDS each, default 10). See docs/hardening.md.
#                                The Python module is left out: an ASan library cannot load into
#                                an interpreter built without it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--sanitize" ]]; then
  bash scripts/setup.sh
  fuzz_seconds="${CTWIN_FUZZ_SECONDS:-10}"
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B build-sanitize -DCMAKE_CXX_COMPILER=clang++ -DCTWIN_FUZZ=ON -DCTWIN_FUZZ_SECONDS="$fuzz_seconds" \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCTWIN_BUILD_BENCH=OFF -DCTWIN_BUILD_PYTHON=OFF \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" >/dev/null
  cmake --build build-sanitize -j "$(nproc)"
  # Leaks are findings too; a report makes the process exit non-zero and its test fail.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)"
  exit 0
fi

bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
