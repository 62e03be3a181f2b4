#!/usr/bin/env python3
"""Time one transformer layer (dense, or MoE at expert parallelism 1), forward and backward, on one CUDA GPU.

The layer is the one ctwin's compute twin sums kernel by kernel (`ctwin layer`): norm, QKV
projection, rotary embedding, causal scaled-dot-product attention (GQA), output projection,
residual, norm, MLP (SwiGLU or GELU) or MoE experts (router, dropless dispatch with balanced routing,
grouped GEMMs: `experts` below), residual, with the shapes of a ctwin model file, tensor and expert
parallelism 1. Two phases per configuration:

  cool  median of --repeats timed iterations after --warmup, as GEMM sweeps are taken;
  hot   median of the last fifth of iterations run back to back for --sustain seconds, with the
        SM clock and board power read (NVML) at the end: the clocks training actually sees.

Writes the JSON that `ctwin layer --measured FILE --gpu PROFILE` reads. Only the layer is timed:
no embedding, loss, optimizer or communication.

    python3 layer_bench.py --model ../../models/llm/llama3-8b.json --seq 8192 -o h100-layers.json
    python3 layer_bench.py --model ../../models/llm/llama3-70b.json --seq 8192 --sustain 120 -o ...
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

MODEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "llm")


def load_model(name):
    path = name if os.path.exists(name) else os.path.join(MODEL_DIR, name + ".json")
    with open(path) as f:
        spec = json.load(f)
    for key in ("mla", "attention"):
        if key in spec:
            sys.exit(f"{path}: '{key}' layers are not timed by this script (full-attention layers only)")
    moe = spec.get("moe")
    if moe and any(key not in ("experts", "top_k", "expert_ffn_hidden") for key in moe):
        sys.exit(f"{path}: MoE layers with shared experts or other options are not timed by this script")
    if spec.get("bias", "none") != "none" or spec.get("dropout", False):
        sys.exit(f"{path}: linear biases and dropout are not timed by this script (Llama-style layers only)")
    heads = spec["heads"]
    return {
        "name": name,
        "hidden": spec["hidden"],
        "ffn": spec["ffn_hidden"],
        "heads": heads,
        "kv_heads": spec.get("kv_heads", heads),
        "head_dim": spec.get("head_dim", spec["hidden"] // heads),
        "swiglu": spec.get("activation", "swiglu") == "swiglu",
        "rmsnorm": spec.get("norm", "rmsnorm") == "rmsnorm",
        "rope": spec.get("position_embedding", "rope") == "rope",
        "moe": moe,
    }


def shard(m, tp):
    """One rank's share of the layer at tensor parallelism `tp` (heads, KV heads and the MLP split)."""
    if tp == 1:
        return m
    if m["moe"]:
        sys.exit(f"{m['name']}: MoE layers are timed at tensor parallelism 1 only")
    for key in ("heads", "kv_heads", "ffn"):
        if m[key] % tp:
            sys.exit(f"{m['name']}: {key} {m[key]} is not divisible by --tp {tp}")
    return dict(m, heads=m["heads"] // tp, kv_heads=m["kv_heads"] // tp, ffn=m["ffn"] // tp)


def sequence_parallel_stand_ins(torch, full_shape, local_rows, dtype, device):
    """With sequence parallelism a TP rank norms and adds its 1/tp of the tokens and all-gathers them before
    the QKV and MLP-up GEMMs, and reduce-scatters after the output and MLP-down GEMMs. The collectives are
    the communication twin's, not the layer's, so they are stood in for by functions that launch no kernel:
    the gather returns a preallocated full-sequence tensor, the scatter a view of the first 1/tp rows, and
    their backwards a view and a preallocated tensor likewise (the values are not the layer's; the times are)."""
    full = torch.randn(full_shape, device=device, dtype=dtype)
    full_grad = torch.randn(full_shape, device=device, dtype=dtype)

    class Gather(torch.autograd.Function):
        @staticmethod
        def forward(ctx, local):
            return full.view_as(full)

        @staticmethod
        def backward(ctx, grad):
            return grad[:, :local_rows]

    class Scatter(torch.autograd.Function):
        @staticmethod
        def forward(ctx, partial):
            return partial[:, :local_rows]

        @staticmethod
        def backward(ctx, grad):
            return full_grad.view_as(full_grad)

    return Gather.apply, Scatter.apply


def build_layer(torch, m, dtype, device, tp=1, full_shape=None):
    nn = torch.nn
    m = shard(m, tp)
    hidden, ffn = m["hidden"], m["ffn"]
    if tp > 1:
        gather, scatter = sequence_parallel_stand_ins(torch, full_shape, full_shape[1] // tp, dtype, device)
    else:
        gather = scatter = lambda t: t
    q_cols = m["heads"] * m["head_dim"]
    kv_cols = m["kv_heads"] * m["head_dim"]

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            norm = nn.RMSNorm if m["rmsnorm"] else nn.LayerNorm
            self.norm1 = norm(hidden)
            self.norm2 = norm(hidden)
            self.qkv = nn.Linear(hidden, q_cols + 2 * kv_cols, bias=False)
            self.proj = nn.Linear(q_cols, hidden, bias=False)
            if m["moe"]:
                e, f = m["moe"]["experts"], m["moe"]["expert_ffn_hidden"]
                self.router = nn.Linear(hidden, e, bias=False)
                self.w1 = nn.Parameter(torch.randn(e, hidden, 2 * f, device=device, dtype=dtype) * 0.02)
                self.w2 = nn.Parameter(torch.randn(e, f, hidden, device=device, dtype=dtype) * 0.02)
            else:
                self.up = nn.Linear(hidden, (2 if m["swiglu"] else 1) * ffn, bias=False)
                self.down = nn.Linear(ffn, hidden, bias=False)

        def rotate(self, x, cos, sin):
            half = x.shape[-1] // 2
            rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
            return x * cos + rotated * sin

        def forward(self, x, cos, sin):
            b, s = x.shape[0], x.shape[1] * tp
            q, k, v = self.qkv(gather(self.norm1(x))).split([q_cols, kv_cols, kv_cols], dim=-1)
            q = q.view(b, s, m["heads"], m["head_dim"]).transpose(1, 2)
            k = k.view(b, s, m["kv_heads"], m["head_dim"]).transpose(1, 2)
            v = v.view(b, s, m["kv_heads"], m["head_dim"]).transpose(1, 2)
            if m["rope"]:
                q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
            a = torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=True, enable_gqa=m["kv_heads"] != m["heads"])
            x = x + scatter(self.proj(a.transpose(1, 2).reshape(b, s, q_cols)))
            if m["moe"]:
                return x + self.experts(self.norm2(x))
            h = self.up(gather(self.norm2(x)))
            if m["swiglu"]:
                gate, up = h.chunk(2, dim=-1)
                h = torch.nn.functional.silu(gate) * up
            else:
                h = torch.nn.functional.gelu(h)
            return x + scatter(self.down(h))

        def experts(self, h):
            """Dropless MoE as Megatron-Core's alltoall dispatcher runs it on one rank (EP 1): router GEMM,
            fp32 softmax and top-k; the token counts copied to the host (the dispatcher's sync); permutation
            of the routed rows into expert order; two grouped GEMMs around SwiGLU; the probability scale and
            the unpermutation (scatter-add). Routing is balanced (token t goes to experts t*k .. t*k+k-1 mod E),
            the twin's default: every expert gets tokens*k/E rows; the router's own top-k is computed and
            its weights used, its choice of experts not."""
            e, k = m["moe"]["experts"], m["moe"]["top_k"]
            flat = h.reshape(-1, hidden)
            tokens = flat.shape[0]
            probs = torch.softmax(self.router(flat).float(), dim=-1)
            weights, _ = torch.topk(probs, k, dim=-1)
            weights = (weights / weights.sum(dim=-1, keepdim=True)).to(flat.dtype)
            chosen = (torch.arange(tokens * k, device=flat.device) % e).view(tokens, k)
            flat_choice = chosen.reshape(-1)
            counts = torch.bincount(flat_choice, minlength=e)
            counts.tolist()
            offsets = torch.cumsum(counts, 0).to(torch.int32)
            order = torch.argsort(flat_choice, stable=True)
            source = order // k
            routed = flat.index_select(0, source)
            a = torch._grouped_mm(routed, self.w1, offs=offsets)
            gate, up = a.chunk(2, dim=-1)
            y = torch._grouped_mm(torch.nn.functional.silu(gate) * up, self.w2, offs=offsets)
            y = y * weights.reshape(-1)[order].unsqueeze(-1)
            return torch.zeros_like(flat).index_add(0, source, y).view_as(h)

    return Layer().to(device=device, dtype=dtype)


def nvml_reading(index):
    try:
        import pynvml
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        clock = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
        power = pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0
        return clock, power
    except Exception:  # NVML absent or not permitted: the row simply has no clock
        return None, None


def time_iteration(torch, layer, x, grad, cos, sin):
    start, middle, end = (torch.cuda.Event(enable_timing=True) for _ in range(3))
    start.record()
    out = layer(x, cos, sin)
    middle.record()
    out.backward(grad)
    end.record()
    end.synchronize()
    return start.elapsed_time(middle), middle.elapsed_time(end)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", required=True,
                        help="ctwin model file or name under models/llm (repeatable)")
    parser.add_argument("--seq", type=int, action="append", help="sequence length (repeatable; default 4096)")
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--tp", type=int, action="append",
                        help="tensor-parallel size: time one rank's share with sequence parallelism, its collectives "
                             "left out (repeatable; default 1; dense layers, micro-batch 1)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--sustain", type=float, default=60.0, help="seconds of back-to-back iterations (hot)")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        sys.exit("no CUDA GPU: this collector times a GPU")
    device = torch.device("cuda")
    dtype = torch.bfloat16
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    for name in args.model:
        m = load_model(name)
        for seq, tp in [(seq, tp) for seq in args.seq or [4096] for tp in args.tp or [1]]:
            if tp > 1 and (args.micro_batch != 1 or seq % tp):
                sys.exit(f"--tp {tp} needs micro-batch 1 and a sequence divisible by it")
            torch.manual_seed(0)
            layer = build_layer(torch, m, dtype, device, tp, (args.micro_batch, seq, m["hidden"]))
            x = torch.randn(args.micro_batch, seq // tp, m["hidden"], device=device, dtype=dtype, requires_grad=True)
            grad = torch.randn_like(x)
            positions = torch.arange(seq, device=device, dtype=torch.float32)
            inverse = 1.0 / (10000 ** (torch.arange(0, m["head_dim"], 2, device=device) / m["head_dim"]))
            angles = torch.outer(positions, inverse).repeat(1, 2)
            cos, sin = angles.cos().to(dtype), angles.sin().to(dtype)
            for _ in range(args.warmup):
                time_iteration(torch, layer, x, grad, cos, sin)
            timed = [time_iteration(torch, layer, x, grad, cos, sin) for _ in range(args.repeats)]
            clock, power = nvml_reading(device.index or 0)
            common = {"model": name, "seq_len": seq, "micro_batch": args.micro_batch, "precision": "bf16"}
            if tp > 1:
                common["tp"] = tp
            rows.append(dict(common, phase="cool", forward_ms=statistics.median(t[0] for t in timed),
                             backward_ms=statistics.median(t[1] for t in timed), iterations=len(timed),
                             **({"sm_clock_mhz": clock, "power_w": power} if clock else {})))
            hot = []
            deadline = time.monotonic() + args.sustain
            while time.monotonic() < deadline or len(hot) < 5:
                hot.append(time_iteration(torch, layer, x, grad, cos, sin))
            clock, power = nvml_reading(device.index or 0)
            tail = hot[-max(1, math.ceil(len(hot) / 5)):]
            rows.append(dict(common, phase="hot", forward_ms=statistics.median(t[0] for t in tail),
                             backward_ms=statistics.median(t[1] for t in tail), iterations=len(tail),
                             **({"sm_clock_mhz": clock, "power_w": power} if clock else {})))
            print(f"{name} seq {seq} tp {tp}: cool {rows[-2]['forward_ms']:.3f} + {rows[-2]['backward_ms']:.3f} ms, "
                  f"hot {rows[-1]['forward_ms']:.3f} + {rows[-1]['backward_ms']:.3f} ms", file=sys.stderr)
            del layer, x, grad
            torch.cuda.empty_cache()
    out = {"gpu": torch.cuda.get_device_name(device), "torch": torch.__version__, "cuda": torch.version.cuda or "",
           "command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%d"), "rows": rows}
    with open(args.output, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
