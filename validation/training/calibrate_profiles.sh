#!/bin/sh
# Writes models/gpus/calibrated/<gpu>.json: each bundled GPU profile with its training_time_scale
# fitted on every dense published run of that GPU in cases.json (ctwin calibrate --training, flow
# network). These profiles are fitted on the validation runs themselves, so validating with them
# is in-sample; `ctwin validate --training --calibrated` is the held-out test of the same fit.
# Each fit's summary (scale, rounds, errors) goes to validation/training/calibration/<gpu>.json.
set -eu
cd "$(dirname "$0")/../.."
ctwin=${CTWIN:-build/ctwin}
for gpu in a100-sxm-80gb h100-sxm h100-sxm-96gb-hbm2e b200 gb200 gb300; do
  "$ctwin" calibrate --training validation/training/cases.json --base "$gpu" --network flow \
    -o "models/gpus/calibrated/$gpu.json" --format json > "validation/training/calibration/$gpu.json"
done
