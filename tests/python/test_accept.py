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
