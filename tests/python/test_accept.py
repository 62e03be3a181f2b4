"""ctwin.accept against the ctwin command: same plan and build, same JSON; bad input names the field."""

import json

import pytest

import ctwin

CLUSTER = "topologies/dgx-h100-superpod.json"
PLAN = "scenarios/acceptance/quick.json"


def test_expectations_equal_the_cli(cli):
    result = ctwin.accept(CLUSTER, 512, plan=PLAN, jobs=2)
    expected = json.loads(cli("accept", "--cluster", CLUSTER, "--gpus", "512", "--plan", PLAN, "--format", "json").stdout)
    assert result.to_dict() == expected
    assert set(result.expected["kind"]) == {"p2p", "gemm", "collective"}
    assert (result.expected["threshold"] < result.expected["expected"]).all()


def test_a_synthesized_fault_is_found_and_matches_the_cli(cli, tmp_path):
    result = ctwin.accept(CLUSTER, 512, plan=PLAN, degraded=["nic:77=0.25"], noise=0.03, seed=3)
    assert result.failed > 0
    assert result.suspects.iloc[0]["part"] == "nic:77"
    assert abs(result.suspects.iloc[0]["share"] - 0.25) < 0.051
    # The same measured set through the command: written as CSV, read back by --measured.
    csv = cli("accept", "--cluster", CLUSTER, "--gpus", "512", "--plan", PLAN, "--synthesize", "nic:77=0.25", "--noise",
              "0.03", "--seed", "3").stdout
    (tmp_path / "measured.csv").write_text(csv)
    report = json.loads(cli("accept", "--cluster", CLUSTER, "--gpus", "512", "--plan", PLAN, "--measured", str(tmp_path),
                            "--format", "json").stdout)
    assert report["suspects"][0]["part"] == "nic:77"
    assert report["failed"] == result.failed
    healthy = ctwin.accept(CLUSTER, 512, plan=PLAN, degraded=[], noise=0.03, seed=3)
    assert healthy.failed == 0 and healthy.suspects.empty


def test_bad_input_names_the_field(tmp_path):
    with pytest.raises(ctwin.InputError, match="tolerance"):
        plan = tmp_path / "plan.json"
        plan.write_text('{"name": "x", "tests": [{"id": "a", "kind": "gemm", "m": 1, "n": 1, "k": 1, "metric": "tflops",'
                        ' "tolerance": "5"}]}')
        ctwin.accept(CLUSTER, 8, plan=plan)
    with pytest.raises(ctwin.InputError, match="degraded"):
        ctwin.accept(CLUSTER, 512, plan=PLAN, degraded=["fan:1=0.5"])


def test_a_partial_measured_set_is_incomplete_in_python_and_the_cli(cli, tmp_path):
    # Issue 35: one 2-node all_reduce log used to read "Accepted: 21 measured points, 0 failed".
    log = "validation/nccl/logs/nccltests-309-gj-2node-allreduce-default.log"
    (tmp_path / "all-reduce-ring@16.log").write_text(open(log).read())
    result = ctwin.accept(CLUSTER, 512, plan=PLAN, measured=tmp_path, jobs=2)
    assert result.verdict == "incomplete", result.verdict_text
    assert result.verdict_text.startswith("Incomplete: 0 of 6 tests measured")
    assert result.tests_measured == 0 and result.tests_in_plan == 6
    coverage = result.coverage.set_index("test")
    assert coverage.loc["all-reduce-ring", "status"] == "partial"
    assert coverage.loc["all-reduce-ring", "missing"] == ["nodes=1", "nodes=16"]
    assert coverage.loc["gemm-bf16", "missing_count"] == 512
    assert "**Incomplete**" in result.markdown and "Accepted" not in result.markdown
    report = json.loads(cli("accept", "--cluster", CLUSTER, "--gpus", "512", "--plan", PLAN, "--measured", str(tmp_path),
                            "--format", "json").stdout)
    assert report == result.to_dict()
    table = cli("accept", "--cluster", CLUSTER, "--gpus", "512", "--plan", PLAN, "--measured", str(tmp_path),
                "--show", "summary").stdout
    assert "Incomplete: 0 of 6 tests measured" in table and "measured points" not in table
    with pytest.raises(ctwin.InputError, match="show"):
        ctwin.accept(CLUSTER, 512, plan=PLAN, measured=tmp_path, show="some")
