"""ctwin.rank_split: the exhaustive plan's rank of one split, and the CLI's bytes."""

import json
import re
from pathlib import Path

import pytest

import ctwin

REPO = Path(__file__).resolve().parents[2]
SCENARIO = "scenarios/default.json"
# Llama 3 8B on 64 H100, the split's shape searched (tp, pp, vpp, schedule, accounting).
FIX = {"training.micro_batch": 1, "parallel.recompute": "selective", "parallel.cp": 1,
       "parallel.distributed_optimizer": True}
FIX_ARGS = [a for k, v in FIX.items() for a in ("--fix", f"{k}={json.dumps(v) if not isinstance(v, str) else v}")]


@pytest.fixture(scope="module")
def exhaustive():
    return ctwin.plan(SCENARIO, top=10**6, fix=FIX, flow_top=0)


def key_of(split: dict) -> dict:
    return {k: split[k] for k in ("tp", "pp", "vpp", "cp", "ep", "schedule", "pipeline_accounting")}


def test_rank_is_the_position_in_the_plan(exhaustive):
    results = exhaustive.results
    assert len(results) >= 10
    # The first, a middle one and the last of the plan.
    for position in (0, len(results) // 2, len(results) - 1):
        r = results[position]
        ranked = ctwin.rank_split(SCENARIO, key_of(r["split"]), fix=FIX)
        assert ranked.rank == r["rank"] == position + 1
        assert ranked.valid == len(results)
        # The plan's rows as they are, error bands and the distinguishable mark included.
        assert ranked.named == r
        assert ranked.best == results[0]
        assert ranked.error_band == exhaustive.error_band
        assert ranked.not_valid is None
        assert ranked.search["replayed"] <= ranked.survivors
        expected = results[0]["analytical"]["tokens_per_s"] / r["analytical"]["tokens_per_s"] - 1
        assert ranked.speedup == pytest.approx(expected, rel=1e-12)
    # The best replays itself and what could tie it alone, far fewer than the plan.
    first = ctwin.rank_split(SCENARIO, key_of(results[0]["split"]), fix=FIX)
    assert first.search["replayed"] < len(results) // 2


def test_cli_rank_of(cli, exhaustive):
    split = exhaustive.results[3]["split"]
    key = key_of(split)
    text = ",".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in key.items())
    out = cli("plan", SCENARIO, *FIX_ARGS, "--rank-of", text, "--format", "json")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ctwin.rank_split(SCENARIO, key, fix=FIX).to_json() + "\n"
    table = cli("plan", SCENARIO, *FIX_ARGS, "--rank-of", text)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[3].split()[:2] == ["split", "rank"]
    # The named split's row: its rank, then of how many.
    assert re.search(rf"distopt\s+4\s+{len(exhaustive.results)}\s", lines[4]), lines[4]
    bad = cli("plan", SCENARIO, *FIX_ARGS, "--rank-of", "tp=3,pp=1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--rank-of: tp:" in bad.stderr
    both = cli("plan", SCENARIO, *FIX_ARGS, "--rank-of", text, "--flow-top", "2")
    assert both.returncode == 2 and "--flow-top" in both.stderr


def test_bad_key():
    with pytest.raises(ctwin.InputError, match="tp"):
        ctwin.rank_split(SCENARIO, {"tp": 3, "pp": 1}, fix=FIX)
    with pytest.raises(ctwin.InputError, match="pp"):  # names several candidates: which field is missing
        ctwin.rank_split(SCENARIO, {"tp": 2}, fix=FIX)
    with pytest.raises(ctwin.InputError, match="gpus"):
        ctwin.rank_split(SCENARIO, {"gpus": 8}, fix=FIX)
    with pytest.raises(ctwin.InputError, match="^key"):
        ctwin.rank_split(SCENARIO, "tp=2,pp=1", fix=FIX)
