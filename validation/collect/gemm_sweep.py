#!/usr/bin/env python3
"""GEMM sweep for `ctwin calibrate --gemm`: times torch matmuls on one CUDA GPU.

Writes exactly the CSV ctwin reads: m,n,k,dtype,time_us (one row per shape and dtype).
Shapes: LLM-shaped (tokens x hidden projections: QKV, attention output, MLP up/down for common
hidden sizes) and square powers of two. Each shape is warmed up, then timed `--repeats` times
with CUDA events around `--inner` back-to-back launches; the median per-launch time is written.

  bf16: torch.matmul(a[m,k], b[k,n])
  fp8:  torch._scaled_mm(a[m,k] e4m3, b[k,n] e4m3 column-major, per-tensor scales, bf16 out).
        The cast to fp8 is NOT timed (unlike aiconfigurator's trtllm sweep, whose fp8 times
        include dynamic activation quantization). Needs compute capability >= 8.9.

Usage: gemm_sweep.py -o h100-gemm.csv [--dtypes bf16,fp8] [--repeats 20] [--quick]
"""

import argparse
import csv
import statistics
import sys

import torch

HIDDEN = [2048, 4096, 5120, 8192, 12288, 16384]
TOKENS = [16, 128, 512, 1024, 2048, 4096, 8192, 16384]
SQUARE = [256, 512, 1024, 2048, 4096, 8192, 16384]


def llm_shapes(quick):
    """(m, n, k) for the linear layers of a transformer with hidden size h: QKV h->3h,
    output h->h, MLP up h->4h and down 4h->h, at several token counts m."""
    hidden = HIDDEN[:3] if quick else HIDDEN
    tokens = TOKENS[::2] if quick else TOKENS
    shapes = set()
    for h in hidden:
        for m in tokens:
            shapes.update({(m, 3 * h, h), (m, h, h), (m, 4 * h, h), (m, h, 4 * h)})
    return shapes


def operands(m, n, k, dtype):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    if dtype == "bf16":
        return lambda: torch.matmul(a, b)
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.t().contiguous().t().to(torch.float8_e4m3fn)  # column-major, as cuBLASLt wants
    one = torch.tensor(1.0, device="cuda")
    return lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def time_us(run, repeats, inner, warmup):
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            run()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1000.0 / inner)  # ms -> us per launch
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--dtypes", default="bf16,fp8")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--inner", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="fewer shapes, for a smoke test")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gemm_sweep.py: no CUDA GPU visible; nothing measured")
    dtypes = args.dtypes.split(",")
    if "fp8" in dtypes and torch.cuda.get_device_capability() < (8, 9):
        print("fp8 needs compute capability >= 8.9; measuring bf16 only", file=sys.stderr)
        dtypes = [d for d in dtypes if d != "fp8"]
    square = SQUARE[:5] if args.quick else SQUARE
    shapes = sorted(llm_shapes(args.quick) | {(s, s, s) for s in square})
    with open(args.output, "w", newline="") as out:
        out.write(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}; "
                  f"median of {args.repeats} x {args.inner} launches after {args.warmup} warm-up\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["m", "n", "k", "dtype", "time_us"])
        for dtype in dtypes:
            for m, n, k in shapes:
                t = time_us(operands(m, n, k, dtype), args.repeats, args.inner, args.warmup)
                writer.writerow([m, n, k, dtype, f"{t:.4f}"])
                out.flush()
                torch.cuda.empty_cache()
    print(f"wrote {args.output}: {len(shapes) * len(dtypes)} rows")


if __name__ == "__main__":
    main()
