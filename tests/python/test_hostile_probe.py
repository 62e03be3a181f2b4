"""A fixed subset of scripts/hostile_probe.py: issue 36's own examples that end at once, and
every 25th generated input (a field or flag x a kind of bad value). The whole probe takes
minutes and is run by hand (docs/hardening.md records its counts)."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import hostile_probe  # noqa: E402

# The issue's cases that spawn no simulation (the rest run in the full probe).
QUICK = ("deep 100000", "layout (30000", "--degrade nic:3=1e-12", "--straggler-rate 1e9/h", "fabric server of 4096",
         "fabric 16.7M GPUs", "gemm with efficiency 1e9", "calibrate --gemm repeated shape")


def chosen(tmp: Path):
    issue = [c for c in hostile_probe.cases(tmp) if any(q in c[0] for q in QUICK)]
    generated = hostile_probe.generated_cases(tmp)
    return issue + generated[::25]


def test_no_crash_internal_error_hang_or_unclear_refusal(ctwin_binary, tmp_path):
    findings = []
    for name, arguments, expected in chosen(tmp_path):
        try:
            outcome = subprocess.run([ctwin_binary, *arguments], capture_output=True, timeout=30, cwd=REPO)
        except subprocess.TimeoutExpired:
            outcome = None
        kind = hostile_probe.classify(outcome)
        if kind in ("crash", "internal", "hang", "other") or (expected is not None and kind != expected):
            findings.append(f"{name}: {kind}: {b'' if outcome is None else outcome.stderr[-300:]!r}")
    assert not findings, "\n".join(findings)
