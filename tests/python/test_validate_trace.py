"""ctwin.validate(kind="trace"): the twin's own trace of a scenario compares at zero error, the
frame has the CLI's rows, and a missing trace or scenario is an InputError naming it."""

import json
import math
import subprocess

import pytest

import ctwin


def test_own_trace_round_trips_and_matches_the_cli(tmp_path, ctwin_binary):
    trace = tmp_path / "default.json"
    subprocess.run([ctwin_binary, "run", "default", "--trace", str(trace)], check=True, capture_output=True)
    frame = ctwin.validate(kind="trace", trace=trace, scenario="default")
    assert len(frame) >= 8
    assert (frame["error"] == 0).all()
    assert frame.attrs["summary"]["max_abs_error"] == 0
    cli = json.loads(subprocess.run([ctwin_binary, "validate", "--trace", str(trace), "--scenario", "default", "--format",
                                     "json"], check=True, capture_output=True, text=True).stdout)
    assert cli == frame.attrs["report"]


def test_a_scenario_changed_in_python_is_the_clis_set(tmp_path, ctwin_binary):
    trace = tmp_path / "default.json"
    subprocess.run([ctwin_binary, "run", "default", "--trace", str(trace)], check=True, capture_output=True)
    slower = ctwin.Scenario.load("default").with_({"parallel.tp": 4})
    frame = ctwin.validate(kind="trace", trace=trace, scenario=slower)
    assert not math.isclose(frame.attrs["summary"]["max_abs_error"], 0)


def test_trace_needs_its_scenario():
    with pytest.raises(ctwin.InputError, match="scenario"):
        ctwin.validate(kind="trace", trace="x.json")
    with pytest.raises(ctwin.InputError, match="trace"):
        ctwin.validate(kind="nccl", trace="x.json")


def test_calibrate_trace_fits_the_scale_and_matches_the_cli(tmp_path, ctwin_binary):
    trace = tmp_path / "default.json"
    subprocess.run([ctwin_binary, "run", "default", "--trace", str(trace)], check=True, capture_output=True)
    result = ctwin.calibrate_trace(trace, "default", "h100-sxm", tmp_path / "py.json")
    assert result.to_dict()["training_time_scale"] == pytest.approx(result.to_dict()["base_training_time_scale"])
    assert len(result.fit) >= 8
    cli = json.loads(subprocess.run([ctwin_binary, "calibrate", "--trace", str(trace), "--scenario", "default", "--base",
                                     "h100-sxm", "-o", str(tmp_path / "py.json"), "--format", "json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert cli == result.to_dict()
