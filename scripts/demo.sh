#!/usr/bin/env bash
# Quick start: set up, build the ctwin command alone (the tests are scripts/test.sh's), and run
# the bundled default scenario — one training step of Llama 3 8B on 64 H100 of a DGX H100
# SuperPOD — then what nccl-tests would print for an all_reduce on that build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh ctwin
./build/ctwin run scenarios/default.json
echo
./build/ctwin collective --cluster topologies/dgx-h100-superpod.json --gpus 64 --op all_reduce -b 8 -e 8G -f 4
