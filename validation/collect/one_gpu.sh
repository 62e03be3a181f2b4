#!/usr/bin/env bash
# Every single-GPU collector in one pass, each bounded in time, into OUTDIR: for a machine lent
# for minutes. A step cut by its limit keeps what it printed (its log holds one JSON line per row).
#   one_gpu.sh OUTDIR [STEP ...]     steps: gemm layers moe kernels (default: all, in that order)
set -u
out=${1:?usage: one_gpu.sh OUTDIR [gemm|layers|moe|kernels ...]}
shift
steps=${*:-gemm layers moe kernels}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
mkdir -p "$out"
{
  date -u
  nvidia-smi
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,memory.total --format=csv
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(), torch.cuda.get_device_capability())'
  nproc; free -g
} > "$out/machine.txt" 2>&1
"$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' || { echo "no PyTorch with CUDA here"; exit 3; }

step() {
  local name=$1 limit=$2 began=$SECONDS rc
  shift 2
  timeout "$limit" "$@" 2> "$out/$name.log"
  rc=$?
  echo "$name: exit $rc after $((SECONDS - began)) s (limit $limit s)" | tee -a "$out/steps.txt"
}
for s in $steps; do
  case $s in
    gemm) step gemm-sweep 130 "$py" "$here/gemm_sweep.py" -o "$out/gemm-sweep.csv" --repeats 5 --warmup 3 ;;
    layers) step layers 100 "$py" "$here/layer_bench.py" --model llama3-8b --model llama3-70b --seq 4096 --seq 8192 \
              --sustain 8 -o "$out/layers.json" ;;
    moe) step moe-sweep 80 "$py" "$here/moe_sweep.py" -o "$out/moe-sweep.json" ;;
    kernels) step kernel-profile 100 "$py" "$here/kernel_profile.py" "$out/kernel-profile.json" ;;
    *) echo "unknown step $s"; exit 2 ;;
  esac
done
