#!/usr/bin/env bash
# Set up, build, and run every test (GoogleTest through CTest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
