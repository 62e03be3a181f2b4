#!/usr/bin/env bash
# Regenerates tests/golden/*.json from the current build (build/ctwin): run it after a change
# that moves a model's output, and commit the new files with the change so review shows them.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build -j "$(nproc)" --target ctwin
/usr/bin/python3 tests/golden/golden.py build/ctwin --update
