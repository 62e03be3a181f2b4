#!/usr/bin/env python3
"""Writes python/notebooks/goodput.ipynb (without outputs); run from the repository root."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

cells = [
    new_markdown_cell("""# Goodput: checkpoint interval and cluster size

How much of a long training run trains the model, from `ctwin.goodput` (the same engine and JSON as
`ctwin goodput`): failures of every part of the build at the rates of
`models/reliability/gpu-cluster.json` (one fitted, the others assumed; see docs/goodput.md),
checkpoints written to a storage tier, restarts, and 2 hot spare nodes per scalable unit.

The job is Llama 3 405B (TP 8, PP 16) on DGX H100 with a fixed step time of 7.0 s (what `ctwin run`
predicts for 16,384 GPUs), so that the figures show the Monte Carlo alone and the notebook runs in
seconds. Two storage tiers: a parallel file system the job blocks on (`pfs`) and local NVMe with an
asynchronous upload (`nvme-async`)."""),
    new_code_cell("""import os
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import ctwin

figures = Path(os.environ.get("CTWIN_FIGURES_DIR", "build/figures"))
figures.mkdir(parents=True, exist_ok=True)
SCENARIO = "scenarios/llama3-405b-h100-16k.json"
TIERS = ["pfs", "nvme-async"]
COMMON = dict(step_time="7.0s", spares="2/su", seed=1)"""),
    new_markdown_cell("""## ETTR against the checkpoint interval (16,384 GPUs, 54 days)

`checkpoint_interval="auto"` simulates a grid of intervals from a quarter to four times Young's
optimum √(2·δ·MTBF) with common random numbers, and the best of them; Young/Daly's interval is
marked for comparison."""),
    new_code_cell("""by_tier = {tier: ctwin.goodput(SCENARIO, days=54, runs=100, storage=tier, **COMMON) for tier in TIERS}
fig, ax = plt.subplots(figsize=(7, 4))
for tier, r in by_tier.items():
    grid = r.interval_search
    line, = ax.plot(grid["interval_s"] / 60, 100 * grid["ettr"], marker="o", label=f"{tier} (δ {r.checkpoint['blocking_s']:.1f} s)")
    ax.axvline(r.young_daly_interval_s / 60, color=line.get_color(), linestyle=":")
ax.set_xscale("log")
ax.set_xlabel("checkpoint interval (min; dotted: Young/Daly)")
ax.set_ylabel("ETTR (%)")
ax.legend()
plt.tight_layout()
plt.savefig(figures / "goodput-interval.png", dpi=100)
summary = pd.DataFrame({tier: {"best interval (min)": r.interval_s / 60, "Young/Daly (min)": r.young_daly_interval_s / 60,
                               "ETTR (%)": 100 * r.ettr["mean"], "first-order ETTR at Young/Daly (%)": 100 * r.young_daly_ettr,
                               "interruptions": r.interruptions["mean"]} for tier, r in by_tier.items()}).T
for r in by_tier.values():
    # The simulated optimum sits near Young/Daly's (the unit tests check 10 % under its assumptions).
    assert 0.6 < r.interval_s / r.young_daly_interval_s < 1.6
    # The curve has its top inside the grid: both ends are worse than the best.
    assert r.interval_search["ettr"].iloc[0] < r.ettr["mean"] and r.interval_search["ettr"].iloc[-1] < r.ettr["mean"]
# A cheaper checkpoint allows a shorter interval and loses less.
assert by_tier["nvme-async"].interval_s < by_tier["pfs"].interval_s
assert by_tier["nvme-async"].ettr["mean"] > by_tier["pfs"].ettr["mean"]
summary.round(2)"""),
    new_markdown_cell("""## ETTR against cluster size (1k to 64k GPUs, 30 days)

The same job at every size, its global batch 16 sequences per replica, the checkpoint interval the
simulated best at each size. A bigger build has more parts and fails more often by construction, so
the interruption count grows with the GPUs and ETTR falls. The DGX H100 SuperPOD reference design's
three tiers of 64-port switches reach 65,536 GPUs; the last size, 98,304 GPUs, takes 128-port
switches (`cluster.fabric.switch.ports`) and is marked apart."""),
    new_code_cell("""SIZES = [1024, 4096, 16384, 65536, 98304]
rows = []
for gpus in SIZES:
    changes = {"gpus": gpus, "training.global_batch": 16 * gpus // 128}
    if gpus > 65536:
        changes["cluster.fabric.switch.ports"] = 128
    for tier in TIERS:
        r = ctwin.goodput(SCENARIO, days=30, runs=30, storage=tier, changes=changes, **COMMON)
        rows.append({"gpus": gpus, "tier": tier, "ettr": r.ettr["mean"], "interval_min": r.interval_s / 60,
                     "interruptions": r.interruptions["mean"], "expected": r.expected_interruptions,
                     "mtbf_h": r.mtbf_h, "nodes": r.nodes})
sizes = pd.DataFrame(rows)
fig, ax = plt.subplots(figsize=(7, 4))
for tier, frame in sizes.groupby("tier"):
    ax.plot(frame["gpus"], 100 * frame["ettr"], marker="o", label=tier)
ax.axvline(65536, color="grey", linestyle=":")
ax.set_xscale("log")
ax.set_xlabel("GPUs (dotted: beyond 64-port switches)")
ax.set_ylabel("ETTR (%)")
ax.legend()
plt.tight_layout()
plt.savefig(figures / "goodput-cluster-size.png", dpi=100)
table = sizes.pivot(index="gpus", columns="tier", values=["ettr", "interval_min", "expected", "mtbf_h"])
for tier, frame in sizes.groupby("tier"):
    frame = frame.set_index("gpus")
    # Failures grow with the build: 64 times the GPUs, at least 50 times the expected interruptions.
    assert frame.loc[65536, "expected"] > 50 * frame.loc[1024, "expected"]
    # The Monte Carlo count follows rate x time.
    assert ((frame["interruptions"] - frame["expected"]).abs() < 0.1 * frame["expected"] + 3).all()
    assert frame.loc[1024, "ettr"] > frame.loc[65536, "ettr"] + 0.02
assert (sizes[sizes.tier == "nvme-async"]["ettr"].values > sizes[sizes.tier == "pfs"]["ettr"].values).all()
table.round(3)"""),
]

notebook = new_notebook(cells=cells, metadata={"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}})
nbformat.write(notebook, "python/notebooks/goodput.ipynb")
