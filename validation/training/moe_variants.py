#!/usr/bin/env python3
"""Writes a copy of a training cases file whose MoE cases run with one issue-23 mechanism switched off,
so that `ctwin validate --training --cases` on the copies attributes the change of each MoE run to a
mechanism (docs/validation.md, "MoE runs: what moved them").

  moe_variants.py CASES OUT --graphs     every MoE case with host.cuda_graphs = true (no host launches exposed)

Standard library only; the dense cases are copied unchanged."""
import argparse
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases")
    parser.add_argument("out")
    parser.add_argument("--graphs", action="store_true", help="MoE cases without the dispatcher's host exposure")
    args = parser.parse_args()
    with open(args.cases) as f:
        cases = json.load(f)
    changed = 0
    for case in cases["cases"]:
        scen = case["scenario"]
        if "moe_runtime" not in scen:
            continue
        if args.graphs:
            scen["host"] = {"cuda_graphs": True}
        changed += 1
    with open(args.out, "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print("%d MoE cases changed" % changed)


if __name__ == "__main__":
    main()
