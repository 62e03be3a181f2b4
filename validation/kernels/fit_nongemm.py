#!/usr/bin/env python3
"""Non-GEMM kernel parameters fitted on one GPU's kernel profile, checked on the other's.

Issue 41 item 2 (first part: the evidence, not yet wired into the C++ compute model).

Mechanisms (each with two parameters per class, fitted by least squares on relative error):
  memory-bound (copy, RMSNorm):  t = bytes / (f * HBM bandwidth) + c
      bytes = read + write of the tensor (the collector's `gbps_rw` is 2 * mib / ms); f is the
      achieved fraction of the datasheet bandwidth, c the fixed per-kernel cost (launch, tail wave).
  attention (causal SDPA, forward and backward apart):  t = FLOPs / (e * dense bf16 peak) + c
      FLOPs as the collector counts them (FlashAttention-2: 4*b*h*s^2*d forward, halved when causal,
      backward 2.5x), recovered here as tflops * ms.
Fitted on GPU A's rows, the same f, e and c predict GPU B from B's datasheet bandwidth and peak:
a mechanism that carries has a small held-out error; a fraction that does not carry shows up as a
large one. The current ctwin defaults (80 % of HBM for memory-bound kernels; attention at 60 % / 45 %
of peak; no fixed cost) are scored beside it.

Usage: /usr/bin/python3 validation/kernels/fit_nongemm.py            prints a Markdown table
       /usr/bin/python3 validation/kernels/fit_nongemm.py --profile H100   the GPU profile's "non_gemm"
         object fitted on that GPU's rows (what models/gpus/calibrated/gemm/*-nongemm.json carry): copy's
         efficiency for every memory-bound class but the norms, RMSNorm's for the norms, attention's
         efficiency and fixed cost. The memory classes' fixed cost is not carried (gpu_spec.hpp says why).
Datasheet figures, with sources in models/gpus/h100-sxm.json and models/gpus/h200.json:
  H100 SXM: 3.35 TB/s HBM3, 989.4 TFLOPS dense bf16; H200: 4.8 TB/s HBM3e, 989.4 TFLOPS dense bf16.
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPUS = {
    "H100": {"file": "h100-kernel-profile.json", "hbm": 3.35e12, "peak": 989.4e12},
    "H200": {"file": "h200-kernel-profile.json", "hbm": 4.8e12, "peak": 989.4e12},
}
DEFAULTS = {"copy": 0.80, "rmsnorm_fwd": 0.80, "attention_fwd": 0.60, "attention_bwd": 0.45}


def load_samples(gpu):
    """(class, work, measured seconds): work is bytes/bandwidth or FLOPs/peak, in seconds."""
    spec = GPUS[gpu]
    with open(os.path.join(HERE, spec["file"])) as f:
        rows = json.load(f)["rows"]
    out = []
    for r in rows:
        if r["kind"] in ("copy", "rmsnorm_fwd"):
            moved = 2 * r["mib"] * 2**20
            out.append((r["kind"], moved / spec["hbm"], r["ms"] * 1e-3))
        elif r["kind"] == "attention":
            for phase in ("fwd", "bwd"):
                flops = r[phase + "_tflops"] * 1e12 * r[phase + "_ms"] * 1e-3
                out.append(("attention_" + phase, flops / spec["peak"], r[phase + "_ms"] * 1e-3))
    return out


def fit_class(samples):
    """Least squares of (w/e + c)/t - 1 over the rows: linear in (1/e, c)."""
    # normal equations for x = (1/e, c), rows (w/t, 1/t), target 1
    s_aa = sum((w / t) ** 2 for w, t in samples)
    s_ab = sum((w / t) * (1 / t) for w, t in samples)
    s_bb = sum((1 / t) ** 2 for w, t in samples)
    s_a1 = sum(w / t for w, t in samples)
    s_b1 = sum(1 / t for w, t in samples)
    det = s_aa * s_bb - s_ab * s_ab
    inv_e = (s_a1 * s_bb - s_b1 * s_ab) / det
    c = (s_aa * s_b1 - s_ab * s_a1) / det
    if c < 0:  # a negative fixed cost is not a mechanism: refit through the origin
        c = 0.0
        inv_e = s_a1 / s_aa
    return 1 / inv_e, c


def errors(samples, eff, c):
    return [(w / eff + c) / t - 1 for w, t in samples]


def by_class(samples):
    out = {}
    for cls, w, t in samples:
        out.setdefault(cls, []).append((w, t))
    return out


def median_abs(xs):
    return statistics.median(abs(x) for x in xs)


def profile_object(gpu):
    data = by_class(load_samples(gpu))
    fitted = {cls: fit_class(data[cls]) for cls in ("copy", "rmsnorm_fwd", "attention_fwd", "attention_bwd")}
    return {
        "memory_efficiency": round(fitted["copy"][0], 3),
        "norm_efficiency": round(fitted["rmsnorm_fwd"][0], 3),
        "attention_fwd_efficiency": round(fitted["attention_fwd"][0], 3),
        "attention_fwd_fixed": f"{fitted['attention_fwd'][1] * 1e6:.1f}us",
        "attention_bwd_efficiency": round(fitted["attention_bwd"][0], 3),
        "attention_bwd_fixed": f"{fitted['attention_bwd'][1] * 1e6:.1f}us",
    }


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--profile" and sys.argv[2] in GPUS:
        print(json.dumps(profile_object(sys.argv[2]), indent=2))
        return
    if len(sys.argv) != 1:
        sys.exit("usage: fit_nongemm.py [--profile H100|H200]")
    data = {g: by_class(load_samples(g)) for g in GPUS}
    print("| class | fitted on | efficiency | fixed µs | fit median | held out on | held-out median | held-out worst "
          "| default on held-out GPU |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    summary = []
    for cls in ("copy", "rmsnorm_fwd", "attention_fwd", "attention_bwd"):
        for fit_gpu, test_gpu in (("H100", "H200"), ("H200", "H100")):
            eff, c = fit_class(data[fit_gpu][cls])
            fit_err = errors(data[fit_gpu][cls], eff, c)
            held = errors(data[test_gpu][cls], eff, c)
            default = errors(data[test_gpu][cls], DEFAULTS[cls], 0.0)
            worst = max(held, key=abs)
            summary.append((fit_gpu, test_gpu, held))
            print(f"| {cls} | {fit_gpu} | {eff * 100:.1f} % | {c * 1e6:.1f} | {median_abs(fit_err) * 100:.1f} % "
                  f"| {test_gpu} | {median_abs(held) * 100:.1f} % | {worst * 100:+.1f} % "
                  f"| {median_abs(default) * 100:.1f} % |")
    for fit_gpu, test_gpu in (("H100", "H200"), ("H200", "H100")):
        held = [e for f, t, errs in summary if f == fit_gpu for e in errs]
        print(f"\nall classes, fitted on {fit_gpu}, held out on {test_gpu}: "
              f"median |error| {median_abs(held) * 100:.1f} %, worst {max(held, key=abs) * 100:+.1f} % "
              f"({len(held)} rows)")


if __name__ == "__main__":
    main()
