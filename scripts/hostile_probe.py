#!/usr/bin/env python3
"""Issue 36's hostile inputs, and variants of each, through the built `ctwin` command.

Each case is run once (with a time limit) and classified: `refused` (exit 2, exactly one line
on stderr), `ran` (exit 0), `internal` (exit 1), `crash` (killed by a signal), `hang` (past the
limit), `other`. The script prints one line per case and the counts, and exits 1 when a case
ends in a crash, an internal error or a hang, or when a case meant to be refused is not.

    scripts/hostile_probe.py [build/ctwin] [--limit SECONDS] [--skip TEXT ...]

docs/hardening.md records the counts of its last run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = str(ROOT / "scenarios/default.json")
DGX = str(ROOT / "topologies/dgx-h100-superpod.json")


def cases(tmp: Path) -> list[tuple[str, list[str], str]]:
    """(name, arguments, expected: refused or ran)."""
    out: list[tuple[str, list[str], str]] = []

    def scenario_file(name: str, text: str) -> str:
        path = tmp / name
        path.write_text(text)
        return str(path)

    # Crashes: deep nesting in every command that reads a scenario, and long layouts.
    for depth in (257, 1000, 100_000):
        deep = scenario_file(f"deep-{depth}.json", '{"gpus": ' + "[" * depth + "]" * depth + "}")
        out.append((f"run deep {depth}", ["run", deep], "refused"))
        out.append((f"plan deep {depth}", ["plan", deep], "refused"))
        out.append((f"sweep deep {depth}", ["sweep", deep, "--grid", "parallel.tp=1,2"], "refused"))
        out.append((f"scale deep {depth}", ["scale", deep, "--gpus", "8,16"], "refused"))
        out.append((f"size --workload deep {depth}",
                    ["size", "--cluster", DGX, "--gpus", "64", "--workload", deep, "--no-collectives"], "refused"))
        objects = scenario_file(f"deep-objects-{depth}.json", '{"a": ' + '{"a": ' * depth + "1" + "}" * depth + "}")
        out.append((f"run deep objects {depth}", ["run", objects], "refused"))
    out.append(("run --set deep path", ["run", SCENARIO, "--set", "training" + ".a" * 300 + "=1"], "refused"))
    for n in (17, 1000, 30_000):
        layout = "(" * n + "t" + ")" * n
        out.append((f"run layout ({n}", ["run", SCENARIO, "--set", f"parallel.pipeline_layout={layout}"], "refused"))
        out.append((f"model layout ({n}", ["model", "--model", "llama3-8b", "--pipeline-layout", layout], "refused"))
    # Internal errors: degradation shares past the floor, on every part kind.
    for term in ("nic:3=1e-12", "nic:3=0.0009", "gpu:3=1e-300", "gpu:3=1e-12", "hbm:3=1e-300", "gpu:3=5e-324",
                 "link:n0.nic3=1e-12", "leaf:0=uplinks:1e-9"):
        out.append((f"run --degrade {term}", ["run", SCENARIO, "--degrade", term], "refused"))
    out.append(("run --degrade gpu:3=0.001", ["run", SCENARIO, "--degrade", "gpu:3=0.001", "--network", "analytical"], "ran"))
    for speed in ("1e-300", "0", "1e-4"):
        out.append((f"goodput --straggler-speed {speed}",
                    ["goodput", SCENARIO, "--days", "30", "--straggler-rate", "0.01/h", "--straggler-speed", speed], "refused"))
    # Internal errors: file names that are not UTF-8.
    bad_name = os.fsencode(str(tmp)) + b"/sc-\xff.json"
    with open(bad_name, "wb") as f:
        f.write(Path(SCENARIO).read_bytes())
    bad_scenario = os.fsdecode(bad_name)
    out.append(("run non-UTF-8 name --format json", ["run", bad_scenario, "--network", "analytical", "--format", "json"], "ran"))
    out.append(("scale non-UTF-8 name --format json",
                ["scale", bad_scenario, "--gpus", "16,32", "--network", "analytical", "--format", "json"], "ran"))
    csv_name = os.fsencode(str(tmp)) + b"/sweep-\xfe.csv"
    with open(csv_name, "wb") as f:
        f.write(b"m,n,k,dtype,time_us\n4096,4096,4096,bf16,200\n8192,4096,4096,bf16,400\n")
    out.append(("calibrate non-UTF-8 name --format json",
                ["calibrate", "--gemm", os.fsdecode(csv_name), "--base", "h100-sxm", "-o", str(tmp / "p.json"), "--format", "json"],
                "ran"))
    # Hangs and blow-ups.
    for rate in ("1e9/h", "1e6/h", "1e4/h"):
        out.append((f"goodput --straggler-rate {rate}", ["goodput", SCENARIO, "--days", "30", "--straggler-rate", rate], "refused"))
    for gpus in ("4096", "65536"):
        out.append((f"fabric server of {gpus}",
                    ["fabric", "--cluster", DGX, "--gpus", gpus, "--set", f"server.gpus={gpus}", "--set", "server.nics.count=8"],
                    "refused"))
    out.append(("fabric 16.7M GPUs", ["fabric", "--cluster", DGX, "--gpus", "16777216", "--set", "fabric.switch.ports=1024"],
                "refused"))
    out.append(("fabric 8M GPUs", ["fabric", "--cluster", DGX, "--gpus", "8388608", "--set", "fabric.switch.ports=1024"],
                "refused"))
    # Absurd values: a GEMM table above the peak, repeated calibration rows.
    rows = b"m,n,k,dtype,time_us\n4096,4096,4096,bf16,200\n4096,4096,4096,bf16,210\n"
    (tmp / "twice.csv").write_bytes(rows)
    out.append(("calibrate --gemm repeated shape",
                ["calibrate", "--gemm", str(tmp / "twice.csv"), "--base", "h100-sxm", "-o", str(tmp / "q.json")], "refused"))
    document = json.loads((ROOT / "models/gpus/h100-sxm.json").read_text())
    document["gemm_table"]["bf16"]["efficiency"][0] = 1e9
    (tmp / "fast.json").write_text(json.dumps(document))
    out.append(("gemm with efficiency 1e9", ["gemm", "--gpu", str(tmp / "fast.json"), "--m", "4096", "--n", "4096", "--k", "4096"],
                "refused"))
    # Wrong exit code.
    out.append(("size with no valid option",
                ["size", "--cluster", DGX, "--gpus", "1000000", "--set", "fabric.max_tiers=2", "--no-collectives"], "refused"))
    return out


def classify(outcome: subprocess.CompletedProcess | None) -> str:
    if outcome is None:
        return "hang"
    if outcome.returncode < 0:
        return "crash"
    if outcome.returncode == 0:
        return "ran"
    if outcome.returncode == 1:
        return "internal"
    if outcome.returncode == 2 and outcome.stderr.count(b"\n") == 1:
        return "refused"
    return "other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ctwin", nargs="?", default=str(ROOT / "build/ctwin"))
    parser.add_argument("--limit", type=float, default=60)
    parser.add_argument("--skip", action="append", default=[],
                        help="leave out cases whose name contains this text (repeatable): an older build may grow "
                             "without bound on the blow-up cases")
    args = parser.parse_args()
    counts: dict[str, int] = {}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ctwin-probe-") as tmp:
        for name, arguments, expected in cases(Path(tmp)):
            if any(text in name for text in args.skip):
                continue
            try:
                outcome = subprocess.run([args.ctwin, *arguments], capture_output=True, timeout=args.limit)
            except subprocess.TimeoutExpired:
                outcome = None
            kind = classify(outcome)
            counts[kind] = counts.get(kind, 0) + 1
            bad = kind in ("crash", "internal", "hang", "other") or kind != expected
            failures += bad
            last = b"" if outcome is None else (outcome.stderr.strip().splitlines() or [b""])[-1]
            print(f"{'FAIL' if bad else 'ok  '} {kind:8} {name}: {last.decode(errors='replace')[:160]}")
    print("counts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"; not as expected: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
