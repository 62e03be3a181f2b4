#!/usr/bin/env bash
# Quick start: set up, build, and run the bundled default — a 1,024-GPU DGX H100 SuperPOD:
# its bill of materials, then an all-to-all on its fabric with the flow model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/ctwin fabric --cluster topologies/dgx-h100-superpod.json --gpus 1024
echo
./build/ctwin traffic --cluster topologies/dgx-h100-superpod.json --gpus 1024 --pattern alltoall_chain --steps 8 --size 64MiB
