#!/usr/bin/env python3
"""Seed 000's fragmentation claim on a 2,048-GPU build: a fixed mix of 11 jobs placed by every policy of
`ctwin cluster --compare-policies` on busy maps of fragmentation 0, 0.1 ... 0.6 (several seeds each), one
flow step. Writes one CSV row per (fabric, fragmentation, seed, policy) and a JSON of the same rows.

  /usr/bin/python3 validation/fragmentation/run_study.py --ctwin build/ctwin --seeds 5 \
      --csv validation/fragmentation/fragmentation.csv --json validation/fragmentation/fragmentation.json
  PYTHONPATH=build/python /usr/bin/python3 validation/fragmentation/run_study.py \
      --from-json validation/fragmentation/fragmentation.json --figure docs/figures/fragmentation.png
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

NODES = 256  # DGX H100: 2,048 GPUs
# Each job is the 2-layer Llama 3 8B cut of the bundled cluster examples: TP 8 inside a node, the rest DP,
# gradients reduced after the last backward so the DP all-reduce (the traffic placement moves) is exposed.
JOB_CHANGES = ["model.layers=2", "parallel.tp=8", "parallel.pp=1", "overlap.dp_grad_reduce=false",
               "overlap.dp_param_gather=false"]
# (name, nodes): 256 nodes in all, so the mix fills the empty build; large jobs first (placed in file order).
MIX = [("a", 64), ("b", 48), ("c", 32), ("d", 32), ("e", 16), ("f", 16), ("g", 16),
       ("h", 8), ("i", 8), ("j", 8), ("k", 8)]
FABRICS = {
    "rail_optimized_2to1": ["fabric.oversubscription.leaf=2"],
    "top_of_rack_4to1": ["fabric.kind=top_of_rack", "fabric.oversubscription.leaf=4"],
}
LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]


def jobs_file(fabric, fragmentation, seed):
    def job(name, nodes):
        gpus = nodes * 8
        return {"name": name, "scenario": "default", "placement": "packed",
                "set": [f"gpus={gpus}", f"training.global_batch={gpus // 4}"] + JOB_CHANGES}
    return {"description": f"fragmentation study: {fabric}, fragmentation {fragmentation}, seed {seed}",
            "cluster": "dgx-h100-superpod", "nodes": NODES, "set": FABRICS[fabric], "steps": 1,
            "fragmentation": fragmentation, "seed": seed, "jobs": [job(n, k) for n, k in MIX]}


def compare(ctwin, document):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(document, f)
    try:
        out = subprocess.run([ctwin, "cluster", f.name, "--compare-policies", "--format", "json"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    return json.loads(out)


def rows_of(fabric, fragmentation, seed, report):
    best = {j["name"]: j["best_step_s"] for j in report["jobs"]}
    free = report["free_gpus"]
    for p in report["policies"]:
        jobs = p["jobs"]
        # Utilisation split by mechanism: GPUs left idle (allocated_share), a placed job slower alone than
        # at its best (scattered over leaves), and slower beside its neighbours (shared links).
        alone = sum(j["gpus"] * best[j["name"]] / j["alone"]["step_time_s"] for j in jobs) / free
        yield {
            "fabric": fabric, "fragmentation": fragmentation, "seed": seed, "policy": p["policy"],
            "busy_nodes": p["busy_nodes"], "free_gpus": free, "placed_gpus": p["placed_gpus"],
            "placed_jobs": len(jobs), "unplaced": " ".join(p["unplaced"]),
            "allocated_share": round(p["allocated_share"], 6),
            "utilisation_alone": round(alone, 6),
            "utilisation": round(p["utilisation"], 6),
            "cluster_busy_share": round((p["busy_nodes"] * 8 + p["placed_gpus"]) / p["build_gpus"], 6),
            "max_slowdown": round(max((j["slowdown"] for j in jobs), default=1.0), 4),
            "max_leaves": max((j["leaves"] for j in jobs), default=0),
        }


PANELS = {"rail_optimized_2to1": "SuperPOD rail-optimized, leaves at 2:1", "top_of_rack_4to1": "top-of-rack, leaves at 4:1"}


def figure_rows(rows):
    """The rows to draw: `topology_aware` joins `packed` where it placed every job alike on every map."""
    key = lambda r: (r["fabric"], r["fragmentation"], r["seed"])  # noqa: E731
    packed = {key(r): r["utilisation"] for r in rows if r["policy"] == "packed"}
    same = all(packed[key(r)] == r["utilisation"] for r in rows if r["policy"] == "topology_aware")
    out = []
    for r in rows:
        if same and r["policy"] == "topology_aware":
            continue
        policy = "packed = topology_aware" if same and r["policy"] == "packed" else r["policy"]
        out.append({"panel": PANELS[r["fabric"]], "policy": policy, "fragmentation": r["fragmentation"],
                    "utilisation": r["utilisation"]})
    return out


def draw(json_path, figure_path):
    from ctwin.figures import save, utilisation_curves
    with open(json_path, encoding="utf-8") as f:
        rows = json.load(f)["rows"]
    save(utilisation_curves(figure_rows(rows), threshold=0.30,
                            title="11 jobs on 2,048 H100: utilisation of the free GPUs, mean of 5 busy maps"),
         figure_path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ctwin", default="build/ctwin")
    parser.add_argument("--seeds", type=int, default=5, help="busy-map seeds 1..N per level")
    parser.add_argument("--csv")
    parser.add_argument("--json")
    parser.add_argument("--from-json", help="draw --figure from this saved JSON instead of running")
    parser.add_argument("--figure", help="PNG or SVG of the utilisation curves (needs build/python on PYTHONPATH)")
    args = parser.parse_args()
    if args.from_json:
        draw(args.from_json, args.figure)
        return
    if not args.csv or not args.json:
        parser.error("--csv and --json are required unless --from-json is given")
    rows = []
    for fabric in FABRICS:
        for level in LEVELS:
            for seed in range(1, args.seeds + 1):
                report = compare(args.ctwin, jobs_file(fabric, level, seed))
                rows.extend(rows_of(fabric, level, seed, report))
                print(f"{fabric} fragmentation {level} seed {seed}: done", file=sys.stderr)
    with open(args.csv, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump({"build": {"cluster": "dgx-h100-superpod", "nodes": NODES, "fabrics": FABRICS},
                   "mix_nodes": dict(MIX), "job_changes": JOB_CHANGES, "steps": 1, "rows": rows},
                  f, indent=1, sort_keys=True)
        f.write("\n")
    if args.figure:
        draw(args.json, args.figure)


if __name__ == "__main__":
    main()
