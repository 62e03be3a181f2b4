#!/usr/bin/env python3
"""Regenerates the gallery of docs/figures.md: every figure kind of ctwin.figures, drawn by the
command that owns it (`ctwin <command> ... --figure docs/figures/<name>.png`) on bundled scenarios.

    /usr/bin/python3 scripts/make-figures.py [BUILD_DIR]     # default: build
    /usr/bin/python3 scripts/make-figures.py --measure routing    # also measure ECMP/adaptive again (minutes)

tests/python/test_figures.py draws the same cases and compares them with these images at 32×24,
so the gallery is checked to be current by the test command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GALLERY = REPO / "docs" / "figures"

#: name -> (figure kind, the command's arguments). The figure of a CLI case is its --figure.
CASES: dict[str, tuple[str, list[str]]] = {
    "run": ("run", ["run", "scenarios/default.json", "--network", "analytical"]),
    "scale": ("scale", ["scale", "scenarios/default.json", "--gpus", "16,32,64,128,256", "--network", "analytical"]),
    "plan": ("plan", ["plan", "scenarios/default.json", "--exhaustive", "--flow-top", "4", "--fix",
                      "training.micro_batch=1", "--fix", "parallel.recompute=none", "--fix", "parallel.schedule=1f1b",
                      "--fix", "parallel.vpp=1", "--fix", "parallel.zero=1"]),
    "size": ("size", ["size", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "1024", "--vary",
                      "fabric.kind=rail_optimized,top_of_rack", "--vary", "fabric.oversubscription.leaf=1,2",
                      "--workload", "scenarios/default.json", "--parts", "docs/size-example-parts.json", "--scales",
                      "1", "--no-collectives"]),
    "explain": ("explain", ["explain", "scenarios/explain/seed000-40x.json", "--reverse"]),
    "goodput": ("goodput", ["goodput", "scenarios/llama3-405b-h100-16k.json", "--days", "54", "--runs", "30",
                            "--step-time", "10.9s", "--spares", "2/su"]),
    "collective": ("collective", ["collective", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "16",
                                  "--network", "analytical", "-e", "4G"]),
    "validate": ("validate", ["validate", "--only", "aic-h100_sxm", "--role", "check", "--network", "analytical"]),
    "validate-training": ("validate", ["validate", "--training", "--only", "nemo2407", "--network", "analytical"]),
}
#: Acceptance has no CLI --figure of its own kind (its --figure embeds images in Markdown): its
#: report comes from the Python API and is drawn by `python3 -m ctwin.figures`.
ACCEPT = dict(cluster="dgx-h100-superpod", gpus=1024, plan="scenarios/acceptance/quick.json",
              degraded=["gpu:42=0.8", "link:leaf3.up5=0.5"], noise=0.03, seed=1)
ACCEPT_CASES = {"accept": "accept", "shortfall": "shortfall"}
#: Figures of measurements too slow to repeat in the test command (minutes of flow simulation):
#: drawn from the report stored beside the image, which `--measure NAME` measures again.
MEASURED_CASES = {"routing": "routing"}
#: ECMP against adaptive routing (docs/fabric.md, "Adaptive routing"): collectives and a bundled
#: step on a fat tree at 1:1 and 2:1 leaf oversubscription, on analytical and flow.
ROUTING = dict(cluster="topologies/dgx-h100-superpod.json", gpus=512, size="256M",
               scenario="scenarios/default.json", oversubscription=("1", "2"), networks=("analytical", "flow"))


def routing_report(binary: str) -> dict:
    """Measures ECMP against adaptive routing: busbw of all_reduce (ring) and alltoall on ROUTING's
    build, and the tokens/s of ROUTING's scenario on that build's GPUs, each case with both policies."""
    r = ROUTING
    rows = []
    for leaf in r["oversubscription"]:
        for network in r["networks"]:
            case = f"{leaf}:1, {network}"
            for op, algo in (("all_reduce", "ring"), ("alltoall", "direct")):
                row = {"measure": f"{op} busbw (GB/s)", "case": case}
                for policy in ("ecmp", "adaptive"):
                    report = report_of(binary, ["collective", "--cluster", r["cluster"], "--gpus", str(r["gpus"]),
                                                "--op", op, "--algo", algo, "-b", r["size"], "-e", r["size"],
                                                "--network", network, "--routing", policy,
                                                "--set", f"fabric.oversubscription.leaf={leaf}"])
                    row[policy] = report["rows"][0]["busbw_GBps"]
                rows.append(row)
            if network == "flow":
                row = {"measure": "step (tokens/s per GPU)", "case": case}
                for policy in ("ecmp", "adaptive"):
                    report = report_of(binary, ["run", r["scenario"], "--network", "flow", "--routing", policy,
                                                "--set", f"gpus={r['gpus']}",
                                                "--set", f"cluster.fabric.oversubscription.leaf={leaf}"])
                    row[policy] = report["tokens_per_s"] / r["gpus"]
                rows.append(row)
    return {"cluster": Path(r["cluster"]).stem, "gpus": r["gpus"], "size": r["size"], "scenario": r["scenario"],
            "rows": rows}


def measured_report(name: str) -> dict:
    """The stored report a MEASURED_CASES figure is drawn from."""
    return json.loads((GALLERY / f"{name}.json").read_text())


def report_of(binary: str, args: list[str], figure: Path | None = None) -> dict:
    """The command's JSON report (with the trace for run), drawing `figure` on the way when given."""
    extra = ["--figure", str(figure)] if figure else []
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "trace.json"
        if args[0] == "run":
            extra += ["--trace", str(trace)]
        done = subprocess.run([binary, *args, "--format", "json", *extra], cwd=REPO, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"ctwin {' '.join(args)}: {done.stderr.strip()}")
        report = json.loads(done.stdout)
        if args[0] == "run":
            report["trace"] = json.loads(trace.read_text())
    return report


def accept_report() -> dict:
    import ctwin
    return ctwin.accept(**ACCEPT).to_dict()


def main(argv: list[str]) -> int:
    measure = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--measure"]
    argv = [a for i, a in enumerate(argv) if a != "--measure" and (i == 0 or argv[i - 1] != "--measure")]
    build = Path(argv[0] if argv else REPO / "build").resolve()
    binary = str(build / "ctwin")
    sys.path.insert(0, str(build / "python"))
    from ctwin.figures import from_report, save
    GALLERY.mkdir(parents=True, exist_ok=True)
    for name, (_, args) in CASES.items():
        report_of(binary, args, GALLERY / f"{name}.png")
        print(f"docs/figures/{name}.png")
    report = accept_report()
    for name, kind in ACCEPT_CASES.items():
        save(from_report(kind, report), GALLERY / f"{name}.png")
        print(f"docs/figures/{name}.png")
    for name, kind in MEASURED_CASES.items():
        if name in measure:
            stored = GALLERY / f"{name}.json"
            stored.write_text(json.dumps(routing_report(binary), indent=1) + "\n")
            print(f"docs/figures/{name}.json")
        save(from_report(kind, measured_report(name)), GALLERY / f"{name}.png")
        print(f"docs/figures/{name}.png")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main(sys.argv[1:]))
