"""ctwin.run(..., degrade=[...]) against ctwin run --degrade: same terms, same JSON."""

import json

import pytest

import ctwin

EXPOSED = ["--set", "overlap.dp_grad_reduce=false", "--set", "overlap.dp_param_gather=false"]


def test_degrade_equals_cli_and_slows_the_step(cli):
    s = ctwin.Scenario.load("scenarios/default.json").with_(
        {"overlap.dp_grad_reduce": False, "overlap.dp_param_gather": False})
    expected = cli("run", "scenarios/default.json", *EXPOSED, "--degrade", "nic:0=0.25", "--degrade", "hbm:40=0.5",
                   "--format", "json")
    assert expected.returncode == 0, expected.stderr
    slow = ctwin.run(s, degrade=["nic:0=0.25", "hbm:40=0.5"])
    assert slow.to_dict() == json.loads(expected.stdout)
    assert slow.step_time_s > ctwin.run(s).step_time_s


def test_fabric_part_on_an_isolated_step_is_refused(cli):
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.run("scenarios/default.json", network="analytical", degrade=["nic:0=0.25"])
    assert "degrade" in str(raised.value) and "isolated" in str(raised.value)
    refused = cli("run", "scenarios/default.json", "--network", "analytical", "--degrade", "nic:0=0.25")
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1
