#!/usr/bin/env bash
# Runs the nccl-tests binaries over message sizes and GPU counts on one node and keeps their
# output as nccl-tests prints it: one log per (operation, GPU count), for `ctwin calibrate --nccl`.
#
# Usage: nccl_sweep.sh NCCL_TESTS_BUILD_DIR OUTPUT_DIR [GPU_COUNTS] [OPS]
#   GPU_COUNTS  default "2 4 8"
#   OPS         default "all_reduce all_gather reduce_scatter alltoall"
# Sizes: 8 B to 8 GiB, doubling (-b 8 -e 8G -f 2); 5 warm-up and 20 timed iterations.
# Multi-node: run the same binaries under mpirun/srun with the same flags (see nccl-tests README).
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
bin_dir=$1
out_dir=$2
gpu_counts=${3:-"2 4 8"}
ops=${4:-"all_reduce all_gather reduce_scatter alltoall"}
mkdir -p "$out_dir"

for op in $ops; do
  binary="$bin_dir/${op}_perf"
  if [[ ! -x "$binary" ]]; then
    echo "nccl_sweep.sh: $binary not found or not executable" >&2
    exit 2
  fi
  for gpus in $gpu_counts; do
    log="$out_dir/${op}_${gpus}gpu.log"
    echo "== $op on $gpus GPUs -> $log"
    # -g: GPUs driven by this one process; -c 1: check results (as published logs do).
    "$binary" -b 8 -e 8G -f 2 -g "$gpus" -w 5 -n 20 -c 1 | tee "$log"
  done
done
