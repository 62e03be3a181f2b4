"""ctwin.goodput against ctwin goodput: same inputs, same JSON bytes; DataFrames that add up."""

import json

import pandas as pd
import pytest

import ctwin

QUICK = ["scenarios/default.json", "--days", "3", "--runs", "40", "--step-time", "2s", "--checkpoint-interval", "30min"]


def test_to_json_is_the_command_bytes(cli):
    expected = cli("goodput", *QUICK, "--spares", "2", "--seed", "3", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    result = ctwin.goodput("scenarios/default.json", days=3, runs=40, step_time="2s", checkpoint_interval="30min",
                           spares=2, seed=3)
    assert result.to_json() + "\n" == expected.stdout
    assert result.to_dict() == json.loads(expected.stdout)
    assert result.ettr["mean"] == json.loads(expected.stdout)["ettr"]["mean"]


def test_frames_add_up_and_changes_apply(cli):
    s = ctwin.Scenario.load("scenarios/default.json").with_({"network": "analytical"})
    result = ctwin.goodput(s, days=3, runs=30, step_time="2s", storage="nvme-async", straggler_rate="1e-3/h",
                           straggler_speed=0.5, straggler_duration="1h")
    expected = cli("goodput", *QUICK[:1], "--set", 'network="analytical"', *QUICK[1:3], "--runs", "30", "--step-time",
                   "2s", "--storage", "nvme-async", "--straggler-rate", "1e-3/h", "--straggler-speed", "0.5",
                   "--straggler-duration", "1h", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    mine, theirs = result.to_dict(), json.loads(expected.stdout)
    # The Scenario object names its file as it was loaded; everything else is the command's.
    assert mine.pop("scenario").endswith("default.json") and theirs.pop("scenario").endswith("default.json")
    assert mine == theirs
    assert isinstance(result.time, pd.DataFrame)
    assert result.time["share"].sum() == pytest.approx(1.0, rel=1e-9)
    assert "throttled GPUs" in set(result.time["where"])
    assert len(result.interval_search) > 5  # the interval was left to ctwin
    assert (result.straggler_stages["effect"] > 1).all()
    assert result.causes["expected"].sum() == pytest.approx(result.expected_interruptions, rel=1e-9)


def test_a_scenario_built_in_memory_is_a_job(cli):
    # Issue 37: the study takes the scenario value, not a file path, so a dict built in a notebook runs.
    loaded = ctwin.Scenario.load("scenarios/default.json")
    built = ctwin.Scenario.from_dict(loaded.to_dict(), source="notebook").with_({"parallel.tp": 4})
    result = ctwin.goodput(built, days=3, runs=40, step_time="2s", checkpoint_interval="30min", spares=2, seed=3)
    expected = cli("goodput", *QUICK, "--set", "parallel.tp=4", "--spares", "2", "--seed", "3", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    mine, theirs = result.to_dict(), json.loads(expected.stdout)
    assert mine.pop("scenario") == "notebook" and theirs.pop("scenario").endswith("default.json")
    assert mine == theirs


def test_bad_input_raises_input_error():
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.goodput("scenarios/default.json", days=3, runs=5, step_time="2s", storage_file="nosuch/storage.json")
    assert "nosuch/storage.json" in str(raised.value)  # --storage-file's twin reads the file it is given
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.goodput("scenarios/default.json", days=3, runs=5, step_time="2s", spares=9)
    assert "--spares" in str(raised.value)
    with pytest.raises(ctwin.InputError):
        ctwin.goodput("scenarios/default.json", days=3, runs=5, step_time="2s", straggler_rate="1e-3")


def test_scenario_checkpoint_is_runs_and_the_command_bytes(cli):
    # goodput takes a scenario's checkpoint (docs/goodput.md#the-scenarios-checkpoint): run's stall, the CLI's bytes.
    path = "scenarios/io/llama3-70b-rapidfs.json"
    checkpoint = {"every_steps": 100, "mode": "async", "tier": "pfs"}
    s = ctwin.Scenario.load(path).with_({"cluster.storage.tiers.0.write_per_server": "10GiBps",
                                          "checkpoint": checkpoint, "network": "analytical"})
    expected = cli("goodput", path, "--set", "cluster.storage.tiers.0.write_per_server=10GiBps", "--set",
                   "checkpoint=" + json.dumps(checkpoint), "--network", "analytical", "--days", "2", "--runs", "20",
                   "--format", "json")
    assert expected.returncode == 0, expected.stderr
    got = ctwin.goodput(s, days=2, runs=20).to_dict()
    assert got == json.loads(expected.stdout)
    run = ctwin.run(s).to_dict()["checkpoint"]
    assert got["checkpoint"]["blocking_s"] == run["stall_s"] + run["contention_s"]
    assert got["checkpoint"]["from"] == {"tier": "scenario", "mode": "scenario", "bytes_per_parameter": "scenario",
                                         "interval": "scenario"}
    assert got["interval_s"] == 100 * got["step_time_s"]
