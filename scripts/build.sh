#!/usr/bin/env bash
# Installs missing packages, then configures and builds into build/ (Release).
#   scripts/build.sh            everything: ctwin, the test suites, benchmarks, the Python module
#   scripts/build.sh TARGET...  only those targets and what they link (demo.sh builds ctwin)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/phases.sh
phase setup bash scripts/setup.sh
targets=()
for target in "$@"; do targets+=(--target "$target"); done
build() {
  configure build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3
  cmake --build build -j "$(nproc)" "${targets[@]}"
}
phase build build
