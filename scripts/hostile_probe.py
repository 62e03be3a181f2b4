#!/usr/bin/env python3
"""Issue 36's hostile inputs, and variants of each, through the built `ctwin` command.

Each case is run once (with a time limit) and classified: `refused` (exit 2, exactly one line
on stderr), `ran` (exit 0), `internal` (exit 1), `crash` (killed by a signal), `hang` (past the
limit), `other`. The script prints one line per case and the counts, and exits 1 when a case
ends in a crash, an internal error or a hang, or when a case meant to be refused is not.

    scripts/hostile_probe.py [build/ctwin] [--limit SECONDS] [--skip TEXT ...] [--generated] [--sample N]

With --generated it adds inputs made systematically (generated_cases): every field of the
default scenario, of a topology, of a model and of a GPU profile, and every flag of every
command, each {missing, wrong type, negative, zero, huge, "NaN", nested 300 deep, not UTF-8}.
Those have no expected outcome: a run or a one-line refusal are both fine, a crash, an internal
error, a hang or a refusal of more than one line is a finding. --sample N keeps every k-th case
so that N remain (tests/python/test_hostile_probe.py runs such a subset).

docs/hardening.md records the counts of its last run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


# ---- generated inputs: every field and flag x every kind of bad value ----

DEPTH = 300  # past the JSON reader's 256
NOT_UTF8 = "\udcff\udcfe"  # the bytes 0xff 0xfe, as os.fsdecode gives them
QUANTITY = re.compile(r"^([0-9.]+)([A-Za-z%/]+)$")


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list) and value:
        yield from _leaves(value[0], path + (0,))  # the first element stands for the list
    else:
        yield path, value


def _json_mutations(value) -> list[tuple[str, object]]:
    """(kind, replacement) for one JSON leaf; the replacement _DELETE removes the key, _RAW_*
    markers are spliced in as text after dumping (deep nesting, bytes that are not UTF-8)."""
    if isinstance(value, bool):
        wrong, number = "yes", None
    elif isinstance(value, (int, float)):
        wrong, number = "abc", True
    elif isinstance(value, str):
        wrong, number = 12345, False
    else:
        wrong, number = 12345, False
    out: list[tuple[str, object]] = [("missing", _DELETE), ("wrong type", wrong)]
    unit = QUANTITY.match(value).group(2) if isinstance(value, str) and QUANTITY.match(value) else None
    if number:
        out += [("negative", -1), ("zero", 0), ("huge", 1e300), ("huge int", 2**64)]
    elif unit:
        out += [("negative", f"-1{unit}"), ("zero", f"0{unit}"), ("huge", f"1e300{unit}")]
    else:
        out += [("negative", -1), ("zero", 0), ("huge", 1e300)]
    out += [("NaN string", "NaN"), ("deep", _RAW_DEEP), ("not UTF-8", _RAW_BYTES)]
    return out


_DELETE = object()
_RAW_DEEP = "@@deep@@"
_RAW_BYTES = "@@bytes@@"


def _mutated_file(document: dict, path: tuple, replacement) -> bytes:
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    if replacement is _DELETE:
        if isinstance(parent, list):
            parent.pop(path[-1])
        else:
            del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    text = json.dumps(copy).encode()
    text = text.replace(json.dumps(_RAW_DEEP).encode(), b"[" * DEPTH + b"]" * DEPTH)
    return text.replace(json.dumps(_RAW_BYTES).encode(), b'"' + bytes([0xFF, 0xFE]) + b'"')


def _flag_mutations() -> list[tuple[str, str | None]]:
    return [("missing", None), ("wrong type", "abc"), ("negative", "-1"), ("zero", "0"), ("huge", "1e300"),
            ("huge int", str(2**64)), ("NaN string", "NaN"), ("deep", "[" * DEPTH + "]" * DEPTH),
            ("not UTF-8", NOT_UTF8)]


# Each command with flags a probe may change one at a time; the rest stay as given (cheap runs).
COMMANDS: list[tuple[str, list[str], list[tuple[str, str]]]] = [
    ("fabric", [], [("--cluster", DGX), ("--gpus", "64")]),
    ("collective", [], [("--cluster", DGX), ("--gpus", "16"), ("--op", "all_reduce"), ("--begin", "1K"), ("--end", "1M"),
                        ("--factor", "8"), ("--network", "analytical"), ("--channels", "4"), ("--dtype", "float"),
                        ("--algo", "ring"), ("--proto", "simple")]),
    ("traffic", [], [("--cluster", DGX), ("--gpus", "16"), ("--pattern", "alltoall_chain"), ("--size", "1MiB"),
                     ("--network", "analytical"), ("--steps", "2"), ("--flows-per-pair", "2")]),
    ("run", [SCENARIO], [("--network", "analytical"), ("--set", "training.global_batch=64"), ("--degrade", "gpu:1=0.5"),
                         ("--comm", "isolated")]),
    ("scale", [SCENARIO], [("--gpus", "64,128"), ("--network", "analytical"), ("--jobs", "2"), ("--batch", "nearest")]),
    ("sweep", [SCENARIO], [("--grid", "parallel.tp=1,2"), ("--network", "analytical"), ("--jobs", "2")]),
    ("plan", [SCENARIO], [("--top", "3"), ("--flow-top", "0"), ("--fix", "parallel.tp=2"), ("--gpus", "64"),
                          ("--jobs", "2"), ("--objective", "mfu")]),
    ("goodput", [SCENARIO], [("--days", "3"), ("--runs", "10"), ("--spares", "5%"), ("--straggler-rate", "1e-6/h"),
                             ("--step-time", "8s"), ("--seed", "1"), ("--checkpoint-interval", "30min"),
                             ("--straggler-speed", "0.5"), ("--hot-swap", "30s")]),
    ("gemm", [], [("--gpu", "h100-sxm"), ("--m", "4096"), ("--n", "4096"), ("--k", "4096"), ("--dtype", "bf16")]),
    ("layer", [], [("--model", "llama3-8b"), ("--gpu", "h100-sxm"), ("--seq", "4096"), ("--micro-batch", "1"),
                   ("--tp", "2"), ("--layer", "0"), ("--precision", "bf16")]),
    ("size", [], [("--cluster", DGX), ("--gpus", "64"), ("--vary", "fabric.oversubscription.leaf=1,2"), ("--scales", "2"),
                  ("--servers-per-rack", "4")]),
    ("accept", [], [("--cluster", DGX), ("--gpus", "16"), ("--plan", "quick"), ("--jobs", "2"), ("--seed", "1")]),
]
NO_VALUE = {"size": ["--no-collectives"]}


def generated_cases(tmp: Path) -> list[tuple[str, list, str | None]]:
    out: list[tuple[str, list, str | None]] = []
    for command, positional, flags in COMMANDS:
        for i, (flag, _) in enumerate(flags):
            for kind, value in _flag_mutations():
                arguments: list = [command, *positional]
                for j, (other, given) in enumerate(flags):
                    if j != i:
                        arguments += [other, given]
                    elif value is not None:
                        arguments += [other, os.fsencode(value) if value == NOT_UTF8 else value]
                arguments += NO_VALUE.get(command, [])
                out.append((f"{command} {flag} {kind}", arguments, None))
    files = [("scenario", ROOT / "scenarios/default.json", lambda f: ["run", f, "--network", "analytical"]),
             ("topology", Path(DGX), lambda f: ["fabric", "--cluster", f, "--gpus", "64"]),
             ("model", ROOT / "models/llm/llama3-8b.json", lambda f: ["model", "--model", f]),
             ("gpu", ROOT / "models/gpus/b200.json", lambda f: ["gemm", "--gpu", f, "--m", "4096", "--n", "4096", "--k", "4096"])]
    for label, source, command in files:
        document = json.loads(source.read_text())
        for n, (path, value) in enumerate(_leaves(document)):
            if path and path[0] in ("description", "sources", "calibration") and label != "scenario":
                continue  # prose and provenance: read as text or not at all
            for kind, replacement in _json_mutations(value):
                file = tmp / f"{label}-{n}-{kind.replace(' ', '_')}.json"
                file.write_bytes(_mutated_file(document, path, replacement))
                out.append((f"{label} {'.'.join(map(str, path))} {kind}", command(str(file)), None))
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
    parser.add_argument("--generated", action="store_true", help="also every field and flag x every bad value")
    parser.add_argument("--sample", type=int, default=0, help="keep every k-th case so that about N remain")
    parser.add_argument("--skip", action="append", default=[],
                        help="leave out cases whose name contains this text (repeatable): an older build may grow "
                             "without bound on the blow-up cases")
    args = parser.parse_args()
    counts: dict[str, int] = {}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ctwin-probe-") as tmp:
        chosen = cases(Path(tmp)) + (generated_cases(Path(tmp)) if args.generated else [])
        if args.sample:
            chosen = chosen[::max(1, len(chosen) // args.sample)]
        for name, arguments, expected in chosen:
            if any(text in name for text in args.skip):
                continue
            try:
                outcome = subprocess.run([args.ctwin, *arguments], capture_output=True, timeout=args.limit)
            except subprocess.TimeoutExpired:
                outcome = None
            kind = classify(outcome)
            counts[kind] = counts.get(kind, 0) + 1
            bad = kind in ("crash", "internal", "hang", "other") or (expected is not None and kind != expected)
            failures += bad
            last = b"" if outcome is None else (outcome.stderr.strip().splitlines() or [b""])[-1]
            print(f"{'FAIL' if bad else 'ok  '} {kind:8} {name}: {last.decode(errors='replace')[:160]}")
    print("counts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), f"; not as expected: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
