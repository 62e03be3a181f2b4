#!/usr/bin/env python3
"""Take a PyTorch profiler (Kineto) Chrome trace of a one-GPU training step of a few layers, dense or MoE, for
`ctwin validate --trace` (issue 41 item 3; docs/validation.md, "Profiler traces"), and later `calibrate --trace`.

The step is --layers copies of the layer `layer_bench.py` builds from a ctwin model file (the same kernels: norm,
QKV, rotary, attention, output projection, MLP or MoE experts with router and grouped GEMMs, at tensor and expert
parallelism 1), forward and backward, then an AdamW step over their weights. Each layer and phase is wrapped in a
`record_function` range named `layer<i>/forward` or `layer<i>/backward` (and `optimizer`), so a reader can align
the trace's kernels with the twin's op graph per layer and phase without guessing from kernel names.

Writes FILE.json (the Chrome trace of the --active profiled steps after --wait + --warmup, as torch.profiler
exports it) and FILE.meta.json (GPU, torch, CUDA, the model, shapes and the command), so a trace says how it was
taken. Not yet run: no GPU machine was lent to the session that wrote it.

    python3 profiler_trace.py --model llama3-8b --layers 2 --seq 4096 -o h100-llama3-8b
    python3 profiler_trace.py --model qwen3-30b-a3b --layers 2 --seq 4096 -o h100-qwen3-30b-a3b
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layer_bench import build_layer, load_model  # noqa: E402  (the same layer as the layer timings)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a ctwin model file or a name under models/llm")
    parser.add_argument("--layers", type=int, default=2, help="layers in the step (memory bounds it; default 2)")
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--micro-batch", type=int, default=1)
    parser.add_argument("--wait", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--active", type=int, default=2, help="profiled steps")
    parser.add_argument("-o", "--output", required=True, help="output path without .json")
    args = parser.parse_args()
    if args.layers < 1 or args.seq < 1 or args.micro_batch < 1 or args.active < 1:
        sys.exit("--layers, --seq, --micro-batch and --active are positive counts")
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    if not torch.cuda.is_available():
        sys.exit("no CUDA GPU: this collector profiles a GPU step")
    device, dtype = torch.device("cuda"), torch.bfloat16
    torch.backends.cuda.matmul.allow_tf32 = False
    m = load_model(args.model)
    torch.manual_seed(0)
    layers = [build_layer(torch, m, dtype, device) for _ in range(args.layers)]
    params = [p for layer in layers for p in layer.parameters()]
    optimizer = torch.optim.AdamW(params, lr=1e-5, fused=True)
    x = torch.randn(args.micro_batch, args.seq, m["hidden"], device=device, dtype=dtype, requires_grad=True)
    positions = torch.arange(args.seq, device=device, dtype=torch.float32)
    inverse = 1.0 / (10000 ** (torch.arange(0, m["head_dim"], 2, device=device) / m["head_dim"]))
    angles = torch.outer(positions, inverse).repeat(1, 2)
    cos, sin = angles.cos().to(dtype), angles.sin().to(dtype)

    def step():
        outputs = []
        h = x
        for i, layer in enumerate(layers):
            with record_function(f"layer{i}/forward"):
                h = layer(h, cos, sin)
            outputs.append(h)
        grad = torch.ones_like(h)
        # Backward layer by layer, last first, so each range holds that layer's kernels only.
        for i in reversed(range(len(layers))):
            with record_function(f"layer{i}/backward"):
                inputs = outputs[i - 1] if i > 0 else x
                grads = torch.autograd.grad(outputs[i], [inputs] + list(layers[i].parameters()), grad, allow_unused=True)
                grad = grads[0]
                for p, g in zip(layers[i].parameters(), grads[1:]):
                    p.grad = g  # None for a weight the step did not use (a router without aux loss)
        with record_function("optimizer"):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    steps = args.wait + args.warmup + args.active
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=args.wait, warmup=args.warmup, active=args.active)) as prof:
        for _ in range(steps):
            step()
            prof.step()
    prof.export_chrome_trace(args.output + ".json")
    meta = {"gpu": torch.cuda.get_device_name(device), "torch": torch.__version__, "cuda": torch.version.cuda or "",
            "model": args.model, "layers": args.layers, "seq_len": args.seq, "micro_batch": args.micro_batch,
            "precision": "bf16", "profiled_steps": args.active, "command": " ".join(sys.argv),
            "date": time.strftime("%Y-%m-%d"),
            "ranges": "layer<i>/forward, layer<i>/backward, optimizer (torch.profiler.record_function)"}
    with open(args.output + ".meta.json", "w") as f:
        json.dump(meta, f, indent=1)
    print(f"wrote {args.output}.json and {args.output}.meta.json", file=sys.stderr)


if __name__ == "__main__":
    main()
