#!/usr/bin/env python3
"""How far ECMP hash luck alone moves a flow step: the 10k fabric options of docs/size.md, each
replayed with several `fabric.ecmp_seed` values; writes one CSV row per (option, sample, seed).

  /usr/bin/python3 validation/ecmp/measure_hash_luck.py --ctwin build/ctwin --seeds 8 > validation/ecmp/hash_luck_10k.csv
"""
import argparse
import csv
import itertools
import json
import subprocess
import sys

SCENARIO = "scenarios/llama3-70b-h100-1024.json"
BASE = ["--set", "gpus=10240", "--set", "training.global_batch=5120", "--network", "flow"]


def step(ctwin, sample, changes):
    args = [ctwin, "run", SCENARIO, *BASE, "--flow-sample", sample, "--format", "json"]
    for change in changes:
        args += ["--set", change]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["step_time_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ctwin", default="build/ctwin")
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0..N-1 per option (0 is the default hash)")
    parser.add_argument("--full-seeds", type=int, default=4, help="seeds replayed in full (slow) per option")
    parser.add_argument("--kinds", default="rail_optimized", help="comma-separated fabric.kind values")
    args = parser.parse_args()
    writer = csv.writer(sys.stdout)
    writer.writerow(["kind", "leaf_oversubscription", "nic_bandwidth", "sample", "ecmp_seed", "step_s"])
    for kind, leaf, nic in itertools.product(args.kinds.split(","), (1, 2, 4), ("400Gbps", "200Gbps")):
        changes = [f"cluster.fabric.kind={kind}", f"cluster.fabric.oversubscription.leaf={leaf}",
                   f"cluster.server.nics.bandwidth={nic}"]
        for sample, seeds in (("su", args.seeds), ("full", args.full_seeds)):
            for seed in range(seeds):
                s = step(args.ctwin, sample, changes + [f"cluster.fabric.ecmp_seed={seed}"])
                writer.writerow([kind, leaf, nic, sample, seed, f"{s:.6f}"])
                sys.stdout.flush()
                print(f"{kind} {leaf}:1 {nic} {sample} seed {seed}: {s:.4f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
