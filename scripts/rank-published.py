#!/usr/bin/env python3
"""Where each published training split ranks in `ctwin plan` (docs/plan.md, "Against published practice").

For every case of validation/training/cases.json, plans the same model, cluster, GPU count,
global batch, sequence length and precision, and reports the rank of the published split and how
much faster the planner's best is predicted to be. To keep run time sane the search is
restricted to the split's shape: micro-batch, recompute, optimizer (ZeRO stage / distributed
optimizer) and context parallelism are fixed to the published values, so the planner chooses
tp, pp, the schedule and vpp, the pipeline accounting and (MoE) ep. Ranking is on the analytical
network by default (--flow-top 0); --flow-top M re-ranks the best M on the flow fabric.

Usage: PYTHONPATH=build/python python3 scripts/rank-published.py [--only ID ...] [--flow-top M]
       [--jobs N] [--format table|json|csv]
Needs the ctwin Python module (build/python). Nothing here is fitted: the published splits are
looked up in the planner's output, never fed to it beyond the fixes listed above.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import ctwin

REPO = Path(__file__).resolve().parents[1]


def fixes_of(scenario: dict) -> dict:
    p, t = scenario["parallel"], scenario["training"]
    fix = {"training.micro_batch": t["micro_batch"], "parallel.recompute": p.get("recompute", "none"),
           "parallel.cp": p.get("cp", 1)}
    if p.get("distributed_optimizer"):
        fix["parallel.distributed_optimizer"] = True
    else:
        fix["parallel.distributed_optimizer"] = False
        fix["parallel.zero"] = p.get("zero", 0)
    return fix


def published_key(scenario: dict) -> tuple:
    p = scenario["parallel"]
    vpp = p.get("vpp", 1)
    schedule = "interleaved" if vpp > 1 else "1f1b"
    accounting = bool(p.get("account_for_embedding_in_pipeline_split", False))
    return (p["tp"], p["pp"], vpp, p.get("cp", 1), p.get("ep", 1), schedule, accounting if p["pp"] > 1 else False)


def result_key(split: dict) -> tuple:
    return (split["tp"], split["pp"], split["vpp"], split["cp"], split["ep"], split["schedule"],
            split["pipeline_accounting"] if split["pp"] > 1 else False)


def rank_case(case: dict, flow_top: int, jobs: int) -> dict:
    scenario = case["scenario"]
    row = {"id": case["id"], "gpus": scenario["gpus"], "global_batch": scenario["training"]["global_batch"]}
    p = scenario["parallel"]
    row["published"] = (f"tp{p['tp']} pp{p['pp']} vpp{p.get('vpp', 1)} cp{p.get('cp', 1)} ep{p.get('ep', 1)} "
                        f"mb{scenario['training']['micro_batch']} {p.get('recompute', 'none')}")
    if p.get("first_stage_layers") or p.get("last_stage_layers") or p.get("pipeline_layout"):
        row["note"] = "uneven first/last stages or a pipeline layout: not in the planner's space"
    if p["tp"] > 1 and not p.get("sequence_parallel", False):
        row["note"] = "published without sequence parallelism; the planner's splits have it whenever tp > 1"
    start = time.monotonic()
    try:
        plan = ctwin.plan(ctwin.Scenario.from_dict(scenario, case["id"]), top=10**7, fix=fixes_of(scenario),
                          flow_top=flow_top, jobs=jobs)
    except ctwin.InputError as error:
        row.update({"rank": None, "valid": 0, "error": str(error)})
        return row
    row["seconds"] = round(time.monotonic() - start, 1)
    row["valid"] = plan.survivors
    results = plan.results
    best = results[0]
    best_score = best["flow"] or best["analytical"]
    row["best"] = (f"tp{best['split']['tp']} pp{best['split']['pp']} vpp{best['split']['vpp']} cp{best['split']['cp']} "
                   f"ep{best['split']['ep']}")
    want = published_key(scenario)
    found = next((r for r in results if result_key(r["split"]) == want), None)
    if found is None:
        row["rank"] = None
        removed = [f"{r['rule']}: {r['removed']}" for r in plan.rules if r["removed"]]
        row["error"] = "the published split is not among the valid candidates (" + "; ".join(removed) + ")"
        return row
    score = found["flow"] or found["analytical"]
    row["rank"] = found["rank"]
    row["best_speedup_%"] = round(100 * (best_score["tokens_per_s"] / score["tokens_per_s"] - 1), 2)
    row["published_mfu_%"] = round(100 * score["mfu"], 1)
    row["best_mfu_%"] = round(100 * best_score["mfu"], 1)
    row["why_best"] = ", ".join(f"{d['part']} {d['delta_s']:+.3f} s" for d in found["why"])
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=str(REPO / "validation/training/cases.json"), help="cases file")
    parser.add_argument("--only", nargs="*", default=[], help="case ids (default: every case)")
    parser.add_argument("--flow-top", type=int, default=0, help="best candidates re-ranked on the flow fabric")
    parser.add_argument("--jobs", type=int, default=None, help="candidates simulated at once (default: one per core)")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument("--dense-only", action="store_true",
                        help="skip the MoE cases (published ep > 1): their steps replay hundreds of micro-batches of "
                             "routed experts and take minutes each on a loaded 2-core machine")
    parser.add_argument("--max-gpus", type=int, default=None, help="skip cases on more GPUs than this")
    args = parser.parse_args()
    cases = json.loads(Path(args.cases).read_text())["cases"]
    if args.only:
        unknown = set(args.only) - {c["id"] for c in cases}
        if unknown:
            print(f"rank-published: --only: unknown case ids {sorted(unknown)}", file=sys.stderr)
            return 2
        cases = [c for c in cases if c["id"] in args.only]
    if args.dense_only:
        cases = [c for c in cases if c["scenario"]["parallel"].get("ep", 1) == 1]
    if args.max_gpus:
        cases = [c for c in cases if c["scenario"]["gpus"] <= args.max_gpus]
    # Smallest first: a run cut short still covers the most cases.
    cases.sort(key=lambda c: (c["scenario"]["gpus"], c["id"]))
    rows = []
    for case in cases:
        rows.append(rank_case(case, args.flow_top, args.jobs))
        print(f"[{len(rows)}/{len(cases)}] {json.dumps(rows[-1])}", file=sys.stderr, flush=True)
    ranks = [r["rank"] for r in rows if r.get("rank")]
    summary = {"cases": len(rows), "ranked": len(ranks), "median_rank": statistics.median(ranks) if ranks else None,
               "top1": sum(r == 1 for r in ranks), "top10": sum(r <= 10 for r in ranks)}
    if args.format == "json":
        print(json.dumps({"flow_top": args.flow_top, "summary": summary, "cases": rows}, indent=2))
        return 0
    import pandas as pd
    frame = pd.DataFrame(rows)
    if args.format == "csv":
        print(frame.to_csv(index=False), end="")
        return 0
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 60):
        print(frame.to_string(index=False))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
