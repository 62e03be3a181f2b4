#!/usr/bin/env python3
"""Writes models/error_bands.json: the p10 and p90 of the held-out errors (predicted / measured throughput - 1)
of the published training runs, per class of prediction: dense or MoE, calibrated or not, GPU family (the
profile's "arch"), network model. ctwin reads it to put a band on every step time, throughput and MFU.

  error_bands.py [--ctwin build/ctwin] [--cases validation/training/cases.json]
                 [--folds validation/training/stack_folds.json] [--out models/error_bands.json] [--jobs N]

Where each held-out error comes from (nothing here is in-sample):
- dense, uncalibrated: `ctwin validate --training --calibrated` with the bundled profiles (nothing is fitted);
- dense, calibrated: the same command's leave-one-run-out column (the GPU's training_time_scale fitted on its
  other dense runs);
- MoE: the folds of fit_stack.py (stack_folds.json: the stack's two parameters fitted with one model, then one
  GPU, left out); each left-out run is simulated at its fold's values, with the calibrated profiles
  (models/gpus/calibrated, as fit_stack.py fits) and with the bundled ones. A run is in two folds (its model's
  and its GPU's), so it brings two errors.
Only the `analytical` network is simulated (the `flow` replay of the 48 runs takes over 20 minutes on the
project's machine); ctwin says so in every band of a `flow` or `simgrid` prediction. A GPU family with fewer
than MIN_RUNS runs in a class gets no class of its own: ctwin falls back to the class over all families.
Quantiles: linear between order statistics (numpy's default, type 7). Standard library only."""
import argparse
import copy
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A class of its own needs 12 runs: its band is then checked leaving one run out, and p10 of the 11 others
# (h = 10 x 0.1 = 1) lies between two observations rather than on the most extreme one. Chosen after seeing
# that 8 (so that every family with 8 runs had a class) served bands that held 68.9 % of held-out runs.
MIN_RUNS = 12
NETWORK = "analytical"


def quantile(values, q):
    v = sorted(values)
    h = (len(v) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def coverage(errors):
    """How many errors lie in the p10-p90 band of the class's other runs (every error of its run left out)."""
    inside = 0
    for e in errors:
        others = [o["error"] for o in errors if o["run"] != e["run"]]
        inside += quantile(others, 0.1) <= e["error"] <= quantile(others, 0.9)
    return inside


def ctwin_json(args, extra):
    cmd = [args.ctwin, "validate", "--training", "--network", NETWORK, "--jobs", str(args.jobs), "--format", "json"] + extra
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit("error_bands.py: %s failed: %s" % (" ".join(cmd), out.stderr.strip()))
    return json.loads(out.stdout)


def gpu_families():
    folder = os.path.join(ROOT, "models", "gpus")
    names = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                profile = json.load(f)
            names[profile["name"]] = profile["arch"]
    return names


def moe_held_out(args, cases, folds, workdir):
    """(run id, fold, calibrated) -> error, each left-out run simulated at its fold's stack values."""
    by_id = {c["id"]: c for c in cases["cases"]}
    errors = []
    for fold in folds["folds"]:
        doc = copy.deepcopy(cases)
        doc["cases"] = [copy.deepcopy(by_id[i]) for i in sorted(fold["held_out_errors"])]
        for c in doc["cases"]:
            with open(os.path.join(ROOT, "models", "stacks", c["scenario"]["stack"] + ".json")) as f:
                stack = json.load(f)
            stack["host_after_sync"] = "%gus" % fold["host_us"]
            stack["expert_time_scale"] = fold["scale"]
            if fold.get("per_expert_us"):
                stack["per_expert_overhead"] = "%gus" % fold["per_expert_us"]
            c["scenario"]["stack"] = stack
        path = os.path.join(workdir, "fold_cases.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        for calibrated in (True, False):
            extra = ["--cases", path] + (["--profiles", os.path.join(ROOT, "models", "gpus", "calibrated")] if calibrated else [])
            for row in ctwin_json(args, extra)["cases"]:
                error = row["predicted"] / row["measured"] - 1
                if calibrated and abs(error - fold["held_out_errors"][row["id"]]) > 1e-6:
                    print("error_bands.py: warning: %s in fold %s %s gives %+.4f, fit_stack.py gave %+.4f (the model "
                          "changed since the fit)" % (row["id"], fold["left_out"], fold["group"], error,
                                                      fold["held_out_errors"][row["id"]]), file=sys.stderr)
                errors.append({"run": row["id"], "fold": "%s left out: %s" % (fold["left_out"], fold["group"]),
                               "calibrated": calibrated, "error": error})
    return errors


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ctwin", default=os.path.join(ROOT, "build", "ctwin"))
    p.add_argument("--cases", default=os.path.join(ROOT, "validation", "training", "cases.json"))
    p.add_argument("--folds", default=os.path.join(ROOT, "validation", "training", "stack_folds.json"))
    p.add_argument("--out", default=os.path.join(ROOT, "models", "error_bands.json"))
    p.add_argument("--workdir", default="/tmp/error_bands")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    with open(args.cases) as f:
        cases = json.load(f)
    with open(args.folds) as f:
        folds = json.load(f)
    family = gpu_families()

    samples = []  # (model kind, calibrated, family, run, how, error)
    cross = ctwin_json(args, ["--cases", args.cases, "--calibrated"])
    arch_of_run = {}
    for row in cross["cases"]:
        arch_of_run[row["id"]] = family[row["gpu"]]
        if not row["dense"]:
            continue
        samples.append(("dense", False, family[row["gpu"]], row["id"], "nothing fitted", row["error_uncalibrated"]))
        if "error_calibrated" in row:
            samples.append(("dense", True, family[row["gpu"]], row["id"],
                            "training_time_scale of the GPU's %d other dense runs" % row["fitted_on_runs"],
                            row["error_calibrated"]))
    for e in moe_held_out(args, cases, folds, args.workdir):
        samples.append(("moe", e["calibrated"], arch_of_run[e["run"]], e["run"], "stack fitted with " + e["fold"], e["error"]))

    classes = []
    for kind in ("dense", "moe"):
        for calibrated in (False, True):
            mine = [s for s in samples if s[0] == kind and s[1] == calibrated]
            groups = {"all": mine}
            for arch in sorted(set(s[2] for s in mine)):
                groups[arch] = [s for s in mine if s[2] == arch]
            for arch, group in groups.items():
                if len(set(s[3] for s in group)) < MIN_RUNS:
                    continue
                errs = [s[5] for s in group]
                classes.append({"model": kind, "calibrated": calibrated, "gpu_family": arch, "network": NETWORK,
                                "runs": len(set(s[3] for s in group)), "p10": round(quantile(errs, 0.1), 6),
                                "p90": round(quantile(errs, 0.9), 6),
                                "errors": [{"run": s[3], "how": s[4], "error": round(s[5], 6)} for s in group]})
    doc = {"description": "p10 and p90 of held-out errors (predicted / measured throughput - 1) of the published "
                          "training runs, per class of prediction; written by validation/training/error_bands.py "
                          "(the runs: validation/training/cases.json; the MoE folds: validation/training/stack_folds.json). "
                          "A class's gpu_family \"all\" pools every family; a family with fewer than %d runs has no class "
                          "of its own." % MIN_RUNS,
           "quantile": "linear between order statistics (type 7)",
           "classes": classes}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("| model | calibrated | GPU family | runs (errors) | p10 | p90 | width (p90 - p10) | held-out coverage |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in classes:
        inside = coverage(c["errors"])
        print("| %s | %s | %s | %d (%d) | %+.1f %% | %+.1f %% | %.1f points | %d of %d (%.0f %%) |" % (
            "MoE" if c["model"] == "moe" else "dense", "yes" if c["calibrated"] else "no", c["gpu_family"], c["runs"],
            len(c["errors"]), 100 * c["p10"], 100 * c["p90"], 100 * (c["p90"] - c["p10"]), inside, len(c["errors"]),
            100.0 * inside / len(c["errors"])))
    pooled = [c for c in classes if c["gpu_family"] == "all"]
    inside = sum(coverage(c["errors"]) for c in pooled)
    total = sum(len(c["errors"]) for c in pooled)
    print("\nover the four classes of all GPU families: %d of %d errors inside the band built without their run (%.1f %%)"
          % (inside, total, 100.0 * inside / total))
    inside = 0
    for c in pooled:
        for e in c["errors"]:
            served = next((f for f in classes if f["model"] == c["model"] and f["calibrated"] == c["calibrated"] and
                           f["gpu_family"] == arch_of_run[e["run"]]), c)
            others = [o["error"] for o in served["errors"] if o["run"] != e["run"]]
            inside += quantile(others, 0.1) <= e["error"] <= quantile(others, 0.9)
    print("as ctwin serves them (a family's own class where it has one): %d of %d (%.1f %%)" % (inside, total, 100.0 * inside / total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
