#!/usr/bin/env python3
"""What MoE layers spend beside their FLOPs, on one CUDA GPU: a grouped-GEMM sweep and launch costs.

1. Grouped GEMM: one expert projection (up: hidden -> 2 x expert ffn, down: expert ffn -> hidden) over
   `local_experts` groups of `rows` tokens each, forward only, bf16 (torch._grouped_mm) and fp8
   (torch._scaled_grouped_mm, e4m3, row-wise scales, bf16 out), each beside one dense GEMM of the same
   FLOPs (torch.matmul / torch._scaled_mm), so efficiency against rows per expert reads off directly.
   Median of CUDA-event timings of --inner back-to-back launches; the cast to fp8 is not timed.
2. The same projections forward and backward (bf16 only: torch has no autograd for the fp8 grouped GEMM),
   grouped against dense, so that the backward's data- and weight-gradient GEMMs (the weight gradient
   of a group has only `rows` in its reduction) are separated from the forward.
3. Launch costs: 1,000 tiny kernels issued eagerly and replayed from one CUDA graph (GPU and host time
   per kernel), and the host round trip of a device-to-host copy of 128 token counts (what a dropless
   dispatcher waits for each layer).

Writes JSON {"gpu", "torch", "cuda", "rows": [...]}; every row is also printed to stderr as it is measured,
so a run cut short keeps what it measured.

    python3 moe_sweep.py -o h100-moe-sweep.json [--quick]
"""

import argparse
import json
import statistics
import sys
import time

import torch

from gemm_sweep import time_us  # beside this file: one timing rule for both sweeps

# (model, hidden, expert ffn, experts): expert shapes of the MoE models in models/llm.
EXPERTS = [
    ("qwen3-30b-a3b", 2048, 768, 128),
    ("qwen3-235b-a22b", 4096, 1536, 128),
    ("gpt-oss-120b", 2880, 2880, 128),
    ("deepseek-v3", 7168, 2048, 256),
    ("mixtral-8x7b", 4096, 14336, 8),
]
ROWS = [64, 128, 256, 512, 1024, 2048, 4096, 8192]
MAX_TOTAL_ROWS = 65536  # keeps one config under ~1 s; larger totals add nothing to the efficiency curve

dev = torch.device("cuda")
rows_out = []


def add(**row):
    rows_out.append(row)
    print(json.dumps(row), file=sys.stderr, flush=True)


def gpu_ms(run, repeats, inner, warmup):
    """Median per launch of `repeats` CUDA-event timings of `inner` launches, as the GEMM sweep times."""
    return time_us(run, repeats, inner, warmup) / 1e3


def grouped_runs(groups, rows, k, n):
    """bf16 and fp8 callables for x[groups*rows, k] times w[groups][k, n], and their dense twins."""
    total = groups * rows
    x = torch.randn(total, k, device=dev, dtype=torch.bfloat16)
    w = torch.randn(groups, k, n, device=dev, dtype=torch.bfloat16) * 0.02
    offs = torch.arange(1, groups + 1, device=dev, dtype=torch.int32) * rows
    wd = w[0].contiguous()
    runs = {
        "bf16_grouped": lambda: torch._grouped_mm(x, w, offs=offs),
        "bf16_dense": lambda: torch.matmul(x, wd),
    }
    if torch.cuda.get_device_capability() >= (8, 9):
        x8 = x.to(torch.float8_e4m3fn)
        w8 = w.transpose(-2, -1).contiguous().transpose(-2, -1).to(torch.float8_e4m3fn)  # column-major per group
        wd8 = wd.t().contiguous().t().to(torch.float8_e4m3fn)
        one = torch.tensor(1.0, device=dev)
        scale_a = torch.ones(total, device=dev, dtype=torch.float32)
        scale_b = torch.ones(groups, n, device=dev, dtype=torch.float32)
        runs["fp8_dense"] = lambda: torch._scaled_mm(x8, wd8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        if hasattr(torch, "_scaled_grouped_mm"):
            runs["fp8_grouped"] = lambda: torch._scaled_grouped_mm(
                x8, w8, scale_a, scale_b, offs=offs, out_dtype=torch.bfloat16)
    return runs


def sweep_grouped(quick, repeats, inner, warmup):
    rows_list = ROWS[1::2] if quick else ROWS
    for model, hidden, ffn, experts in (EXPERTS[:2] if quick else EXPERTS):
        for groups in sorted({min(experts, 8), min(experts, 32)}):
            for rows in rows_list:
                if groups * rows > MAX_TOTAL_ROWS:
                    continue
                for proj, k, n in (("up", hidden, 2 * ffn), ("down", ffn, hidden)):
                    flop = 2.0 * groups * rows * k * n
                    row = dict(kind="grouped_gemm", model=model, proj=proj, local_experts=groups,
                               rows_per_expert=rows, m_total=groups * rows, k=k, n=n, gflop=round(flop / 1e9, 3))
                    try:
                        for name, run in grouped_runs(groups, rows, k, n).items():
                            try:
                                ms = gpu_ms(run, repeats, inner, warmup)
                                row[name + "_us"] = round(ms * 1e3, 2)
                                row[name + "_tflops"] = round(flop / ms / 1e9, 1)
                            except Exception as error:  # an unsupported layout or dtype is a result, not a stop
                                row[name + "_error"] = str(error).splitlines()[0][:160]
                    except torch.OutOfMemoryError:
                        row["error"] = "out of memory"
                    add(**row)
                    torch.cuda.empty_cache()


def sweep_grouped_backward(quick, repeats, warmup):
    rows_list = ROWS[1::2] if quick else ROWS
    for model, hidden, ffn, experts in (EXPERTS[:2] if quick else EXPERTS):
        groups = min(experts, 8)
        for rows in rows_list:
            for proj, k, n in (("up", hidden, 2 * ffn), ("down", ffn, hidden)):
                total = groups * rows
                row = dict(kind="grouped_gemm_fwd_bwd", model=model, proj=proj, local_experts=groups,
                           rows_per_expert=rows, m_total=total, k=k, n=n,
                           fwd_bwd_gflop=round(3 * 2.0 * total * k * n / 1e9, 3))
                try:
                    x = torch.randn(total, k, device=dev, dtype=torch.bfloat16, requires_grad=True)
                    w = (torch.randn(groups, k, n, device=dev, dtype=torch.bfloat16) * 0.02).requires_grad_()
                    wd = (torch.randn(k, n, device=dev, dtype=torch.bfloat16) * 0.02).requires_grad_()
                    gy = torch.randn(total, n, device=dev, dtype=torch.bfloat16)
                    offs = torch.arange(1, groups + 1, device=dev, dtype=torch.int32) * rows
                    runs = {
                        "grouped_fwd": lambda: torch._grouped_mm(x, w, offs=offs),
                        "grouped_fwd_bwd": lambda: torch.autograd.grad(torch._grouped_mm(x, w, offs=offs), (x, w), gy),
                        "dense_fwd": lambda: torch.matmul(x, wd),
                        "dense_fwd_bwd": lambda: torch.autograd.grad(torch.matmul(x, wd), (x, wd), gy),
                    }
                    for name, run in runs.items():
                        try:
                            row[name + "_us"] = round(gpu_ms(run, repeats, 1, warmup) * 1e3, 2)
                        except Exception as error:
                            row[name + "_error"] = str(error).splitlines()[0][:160]
                except torch.OutOfMemoryError:
                    row["error"] = "out of memory"
                add(**row)
                torch.cuda.empty_cache()


def launch_costs():
    x = torch.zeros(1024, device=dev)
    small = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
    kernels = 1000

    def eager_add():
        for _ in range(kernels):
            x.add_(1.0)

    def eager_mm():
        for _ in range(kernels):
            small @ small

    for name, body in (("add", eager_add), ("matmul64", eager_mm)):
        for _ in range(3):
            body()
        torch.cuda.synchronize()
        host, gpu = [], []
        for _ in range(10):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter()
            start.record()
            body()
            stop.record()
            t1 = time.perf_counter()
            stop.synchronize()
            host.append((t1 - t0) * 1e6 / kernels)
            gpu.append(start.elapsed_time(stop) * 1e3 / kernels)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            body()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        replay_gpu_ms = gpu_ms(graph.replay, 10, 1, 3)
        t0 = time.perf_counter()
        for _ in range(10):
            graph.replay()
        replay_host_us = (time.perf_counter() - t0) * 1e6 / 10
        torch.cuda.synchronize()
        add(kind="launch", kernel=name, kernels=kernels, eager_host_us_per_kernel=round(statistics.median(host), 3),
            eager_gpu_us_per_kernel=round(statistics.median(gpu), 3),
            graph_gpu_us_per_kernel=round(replay_gpu_ms * 1e3 / kernels, 3),
            graph_host_us_per_replay=round(replay_host_us, 2))

    counts = torch.randint(0, 4096, (128,), device=dev, dtype=torch.int64)
    idle = []
    for _ in range(200):
        t0 = time.perf_counter()
        counts.tolist()
        idle.append((time.perf_counter() - t0) * 1e6)
    add(kind="d2h_sync", elements=128, host_round_trip_us_median=round(statistics.median(idle[20:]), 2),
        host_round_trip_us_min=round(min(idle[20:]), 2))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--inner", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer shapes, for a smoke test")
    parser.add_argument("--parts", default="launch,forward,backward",
                        help="which parts to measure, comma-separated: launch, forward, backward")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("moe_sweep.py: no CUDA GPU visible; nothing measured")
    try:
        parts = args.parts.split(",")
        if "launch" in parts:
            launch_costs()
        if "forward" in parts:
            sweep_grouped(args.quick, args.repeats, args.inner, args.warmup)
        if "backward" in parts:
            sweep_grouped_backward(args.quick, args.repeats, args.warmup)
    finally:
        with open(args.output, "w") as out:
            json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
                       "repeats": args.repeats, "inner": args.inner, "warmup": args.warmup, "rows": rows_out},
                      out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
