#!/usr/bin/env python3
"""Fits a software stack's free parameters (host_after_sync, expert_time_scale, per_expert_overhead:
models/stacks/) on the public Megatron-Bridge MoE runs and judges them held out, leaving one group out at a
time: by model, then by GPU. Nothing is fitted per run: one set of values serves every run of a fold.

  fit_stack.py [--ctwin build/ctwin] [--cases validation/training/cases.json] [--out DIR] [--jobs N]
               [--host-us 0,250,...] [--scale 1,1.25,...] [--per-expert-us 0,10,...] [--reuse GRID.json]
               [--write-stacks]

Each MoE case (a scenario with a "stack") is simulated once per grid point, with its stack inline and the
point's values, by `ctwin validate --training --profiles models/gpus/calibrated --network analytical`
(the GPU's scale fitted on all its dense runs, which is what `--calibrated` gives MoE runs). A fold's fit is
the grid point with the least median |log(predicted / measured)| over the runs it keeps; the held-out runs
are read at that point (simulated there, not interpolated). --reuse takes the points a previous grid.json
already holds (a coarse grid refined around its optimum need not simulate the coarse points again). Writes DIR/grid.json (every case at every point),
DIR/folds.json and prints the tables of docs/validation.md. --write-stacks puts the all-runs fit into every
models/stacks/mcore-te-*.json. Standard library only."""
import argparse
import copy
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = {"qwen330ba3b": "Qwen3-30B-A3B", "qwen3235ba22b": "Qwen3-235B-A22B", "gptoss120b": "GPT-OSS 120B",
          "deepseekv3": "DeepSeek-V3"}
GPUS = {"dgx-h100": "H100", "dgx-b200": "B200", "dgx-gb200": "GB200", "dgx-gb300": "GB300"}


def label(case_id, table):
    for key, name in table.items():
        if key in case_id:
            return name
    raise SystemExit("fit_stack.py: case %s has no %s" % (case_id, "model" if table is MODELS else "GPU"))


def run_point(args, cases, host_us, scale, per_expert_us, path):
    doc = copy.deepcopy(cases)
    for c in doc["cases"]:
        if host_us is None:  # the model without a stack: what the runs were predicted before
            del c["scenario"]["stack"]
            continue
        with open(os.path.join(ROOT, "models", "stacks", c["scenario"]["stack"] + ".json")) as f:
            stack = json.load(f)
        stack["host_after_sync"] = "%gus" % host_us
        stack["expert_time_scale"] = scale
        for field, value in args.fixed.items():
            stack[field] = value
        if per_expert_us:  # 0: the field left out, so the stack is the two-parameter one to the bit
            stack["per_expert_overhead"] = "%gus" % per_expert_us
        c["scenario"]["stack"] = stack
    with open(path, "w") as f:
        json.dump(doc, f)
    out = subprocess.run([args.ctwin, "validate", "--training", "--cases", path, "--profiles",
                          os.path.join(ROOT, "models", "gpus", "calibrated"), "--network", "analytical", "--jobs",
                          str(args.jobs), "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit("fit_stack.py: ctwin failed at host %s us, scale %s, per expert %s us: %s" % (
            host_us, scale, per_expert_us, out.stderr.strip()))
    return {r["id"]: r["predicted"] / r["measured"] for r in json.loads(out.stdout)["cases"]}


def loss(ratios):
    return statistics.median(abs(math.log(r)) for r in ratios)


def best_point(grid, ids):
    return min(grid, key=lambda p: (loss([p["ratio"][i] for i in ids]), p["host_us"], p["scale"], p["per_expert_us"]))


def pct(x):
    return ("%+.1f %%" % (100 * x)).replace("-", "\u2212")


def summary(errors):
    a = [abs(e) for e in errors]
    return "%.1f %% (%.1f %%)" % (100 * statistics.median(a), 100 * max(a))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ctwin", default=os.path.join(ROOT, "build", "ctwin"))
    p.add_argument("--cases", default=os.path.join(ROOT, "validation", "training", "cases.json"))
    p.add_argument("--out", default="/tmp/fit_stack")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--host-us", default="0,250,500,1000,2000,3000,4000,6000,8000")
    p.add_argument("--scale", default="1,1.1,1.25,1.5,1.75,2,2.5")
    p.add_argument("--per-expert-us", default="0")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="a stack field every point takes (e.g. expert_gemms='\"per_expert\"'), for a variant of the mechanisms")
    p.add_argument("--reuse", help="a previous grid.json whose points are not simulated again")
    p.add_argument("--write-stacks", action="store_true")
    args = p.parse_args()
    args.fixed = {}
    for item in args.set:
        field, _, value = item.partition("=")
        args.fixed[field] = json.loads(value)
    with open(args.cases) as f:
        cases = json.load(f)
    cases["cases"] = [c for c in cases["cases"] if "stack" in c["scenario"]]
    ids = [c["id"] for c in cases["cases"]]
    measured = {c["id"]: c for c in cases["cases"]}
    os.makedirs(args.out, exist_ok=True)
    grid = []
    if args.reuse:
        with open(args.reuse) as f:
            grid = [dict(g, per_expert_us=g.get("per_expert_us", 0.0)) for g in json.load(f)]
    done = {(g["host_us"], g["scale"], g["per_expert_us"]) for g in grid}
    points = [(float(h), float(s), float(e)) for h in args.host_us.split(",") for s in args.scale.split(",")
              for e in args.per_expert_us.split(",")]
    points = [pt for pt in points if pt not in done]
    for n, (h, s, e) in enumerate(points):
        ratio = run_point(args, cases, h, s, e, os.path.join(args.out, "cases.json"))
        grid.append({"host_us": h, "scale": s, "per_expert_us": e, "ratio": ratio})
        print("[%d/%d] host %g us, scale %g, per expert %g us: median |error| %.1f %%" % (
            n + 1, len(points), h, s, e, 100 * statistics.median(abs(r - 1) for r in ratio.values())), file=sys.stderr)
    with open(os.path.join(args.out, "grid.json"), "w") as f:
        json.dump(grid, f, indent=1)

    base = {"ratio": run_point(args, cases, None, None, None, os.path.join(args.out, "cases.json"))}
    unfitted = next(g for g in grid if g["host_us"] == 0 and g["scale"] == 1 and g["per_expert_us"] == 0)
    folds, held = [], {}
    for kind, table in (("model", MODELS), ("GPU", GPUS)):
        held[kind] = {}
        for group in sorted(set(label(i, table) for i in ids)):
            out = [i for i in ids if label(i, table) == group]
            keep = [i for i in ids if i not in out]
            fit = best_point(grid, keep)
            for i in out:
                held[kind][i] = fit["ratio"][i] - 1
            folds.append({"left_out": kind, "group": group, "runs": len(out), "host_us": fit["host_us"],
                          "scale": fit["scale"], "per_expert_us": fit["per_expert_us"], "fit_median_abs_log": loss([fit["ratio"][i] for i in keep]),
                          "held_out_errors": {i: fit["ratio"][i] - 1 for i in out}})
    every = best_point(grid, ids)
    with open(os.path.join(args.out, "folds.json"), "w") as f:
        json.dump({"all_runs": {"host_us": every["host_us"], "scale": every["scale"], "per_expert_us": every["per_expert_us"]},
                   "folds": folds}, f, indent=1)

    print("| left out | group | runs | fitted host_after_sync | fitted expert_time_scale | fitted per_expert_overhead | "
          "held-out median |error| (max) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for fo in folds:
        print("| %s | %s | %d | %g us | %g | %g us | %s |" % (fo["left_out"], fo["group"], fo["runs"], fo["host_us"], fo["scale"],
                                                             fo["per_expert_us"], summary(list(fo["held_out_errors"].values()))))
    print()
    print("| case | before (no stack) | stack, nothing fitted (0 us, 1, 0 us) | stack fitted on all runs (%g us, %g, %g us) | "
          "held out by model | held out by GPU |" % (every["host_us"], every["scale"], every["per_expert_us"]))
    print("| --- | --- | --- | --- | --- | --- |")
    for i in ids:
        print("| %s | %s | %s | %s | %s | %s |" % (i.replace("mbridge-25.11-", "").replace("-pre-training", ""),
                                                  pct(base["ratio"][i] - 1), pct(unfitted["ratio"][i] - 1),
                                                  pct(every["ratio"][i] - 1), pct(held["model"][i]),
                                                  pct(held["GPU"][i])))
    print()
    for kind in ("model", "GPU"):
        errs = list(held[kind].values())
        per_pair = {}
        for i in ids:
            per_pair.setdefault((label(i, MODELS), label(i, GPUS)), []).append(abs(held[kind][i]))
        worst = max(per_pair.items(), key=lambda kv: statistics.median(kv[1]))
        print("held out by %s: median |error| %s, worst (model, GPU) median %.1f %% (%s on %s)" % (
            kind, summary(errs), 100 * statistics.median(worst[1]), worst[0][0], worst[0][1]))
    print("before (no stack): median |error| %s" % summary([base["ratio"][i] - 1 for i in ids]))
    print("stack, nothing fitted: median |error| %s" % summary([unfitted["ratio"][i] - 1 for i in ids]))
    print("all runs fitted (in-sample): %s at host_after_sync %g us, expert_time_scale %g, per_expert_overhead %g us" % (
        summary([every["ratio"][i] - 1 for i in ids]), every["host_us"], every["scale"], every["per_expert_us"]))
    if args.write_stacks:
        folder = os.path.join(ROOT, "models", "stacks")
        for name in sorted(os.listdir(folder)):
            if not name.startswith("mcore-te-"):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                stack = json.load(f)
            stack["host_after_sync"] = "%gus" % every["host_us"]
            stack["expert_time_scale"] = every["scale"]
            stack.pop("per_expert_overhead", None)
            if every["per_expert_us"]:
                stack["per_expert_overhead"] = "%gus" % every["per_expert_us"]
                if "per_expert_overhead" not in stack["fitted"]:
                    stack["fitted"].append("per_expert_overhead")
            with open(path, "w") as f:
                json.dump(stack, f, indent=2, ensure_ascii=False)
                f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
