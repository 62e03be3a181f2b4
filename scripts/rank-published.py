#!/usr/bin/env python3
"""Where each published training split ranks in `ctwin plan` (docs/plan.md, "Against published practice").

For every case of validation/training/cases.json, plans the same model, cluster, GPU count,
global batch, sequence length and precision, and reports the rank of the published split and how
much faster the planner's best is predicted to be. The search is restricted to the split's
shape: micro-batch, recompute, optimizer (ZeRO stage / distributed optimizer) and context
parallelism are fixed to the published values, so the planner chooses tp, pp, the schedule and
vpp, the pipeline accounting and (MoE) ep. The rank is the analytical network's, from
ctwin.rank_split: the published split is replayed, then only the candidates whose step-time
lower bound could rank ahead of it (the same rank as the exhaustive plan's, ties included).

Usage: PYTHONPATH=build/python python3 scripts/rank-published.py [--only ID ...] [--dense-only]
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


def published_key(scenario: dict) -> dict:
    """The published split by the names of a plan result's split (vpp 1 is the 1F1B schedule)."""
    p = scenario["parallel"]
    accounting = bool(p.get("account_for_embedding_in_pipeline_split", False))
    return {"tp": p["tp"], "pp": p["pp"], "vpp": p.get("vpp", 1), "cp": p.get("cp", 1), "ep": p.get("ep", 1),
            "pipeline_accounting": accounting if p["pp"] > 1 else False}


def split_text(split: dict) -> str:
    return f"tp{split['tp']} pp{split['pp']} vpp{split['vpp']} cp{split['cp']} ep{split['ep']}"


def rank_case(case: dict, jobs: int) -> dict:
    scenario = case["scenario"]
    row = {"id": case["id"], "gpus": scenario["gpus"], "global_batch": scenario["training"]["global_batch"],
           "moe": scenario["parallel"].get("ep", 1) > 1}
    p = scenario["parallel"]
    row["published"] = (f"tp{p['tp']} pp{p['pp']} vpp{p.get('vpp', 1)} cp{p.get('cp', 1)} ep{p.get('ep', 1)} "
                        f"mb{scenario['training']['micro_batch']} {p.get('recompute', 'none')}")
    if p.get("first_stage_layers") or p.get("last_stage_layers") or p.get("pipeline_layout"):
        row["note"] = "uneven first/last stages or a pipeline layout: not in the planner's space"
    if p["tp"] > 1 and not p.get("sequence_parallel", False):
        row["note"] = "published without sequence parallelism; the planner's splits have it whenever tp > 1"
    start = time.monotonic()
    try:
        ranked = ctwin.rank_split(ctwin.Scenario.from_dict(scenario, case["id"]), published_key(scenario),
                                  fix=fixes_of(scenario), jobs=jobs, memory_margin=0)
    except ctwin.InputError as error:
        row.update({"rank": None, "valid": None, "error": str(error)})
        return row
    row["seconds"] = round(time.monotonic() - start, 1)
    row["valid"] = ranked.valid
    row["replayed"] = ranked.search["replayed"]
    row["bounded"] = ranked.search["bounded"]
    best = ranked.best
    row["best"] = split_text(best["split"]) if best else None
    if ranked.not_valid is not None:
        row["rank"] = None
        row["error"] = f"not valid ({ranked.not_valid['rule']}): {ranked.not_valid['message']}"
        return row
    named = ranked.named
    row["micro_batches"] = named["split"]["micro_batches"]
    row["rank"] = ranked.rank
    row["best_speedup_%"] = round(100 * ranked.speedup, 2)
    row["published_mfu_%"] = round(100 * named["analytical"]["mfu"], 1)
    row["best_mfu_%"] = round(100 * best["analytical"]["mfu"], 1)
    row["why_best"] = ", ".join(f"{d['part']} {d['delta_s']:+.3f} s" for d in named["why"])
    row["published_breakdown_s"] = {k: round(v, 4) for k, v in named["analytical"]["breakdown_s"].items()}
    row["best_breakdown_s"] = {k: round(v, 4) for k, v in best["analytical"]["breakdown_s"].items()}
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=str(REPO / "validation/training/cases.json"), help="cases file")
    parser.add_argument("--only", nargs="*", default=[], help="case ids (default: every case)")
    parser.add_argument("--jobs", type=int, default=None, help="candidates simulated at once (default: one per core)")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument("--dense-only", action="store_true", help="skip the MoE cases (published ep > 1)")
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
        rows.append(rank_case(case, args.jobs))
        print(f"[{len(rows)}/{len(cases)}] {json.dumps(rows[-1])}", file=sys.stderr, flush=True)
    def summarize(subset: list[dict]) -> dict:
        ranks = [r["rank"] for r in subset if r.get("rank")]
        return {"cases": len(subset), "ranked": len(ranks),
                "median_rank": statistics.median(ranks) if ranks else None,
                "top1": sum(r == 1 for r in ranks), "top10": sum(r <= 10 for r in ranks)}

    summary = {"all": summarize(rows), "dense": summarize([r for r in rows if not r["moe"]]),
               "moe": summarize([r for r in rows if r["moe"]])}
    if args.format == "json":
        print(json.dumps({"summary": summary, "cases": rows}, indent=2))
        return 0
    import pandas as pd
    frame = pd.DataFrame(rows).drop(columns=["published_breakdown_s", "best_breakdown_s"], errors="ignore")
    if args.format == "csv":
        print(frame.to_csv(index=False), end="")
        return 0
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 60):
        print(frame.to_string(index=False))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
