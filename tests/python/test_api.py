"""The Python module against the ctwin command: same inputs, same JSON."""

import json
import pydoc
import sys
import threading
import time

import pandas as pd
import pytest

import ctwin

SCENARIOS = ["scenarios/default.json", "scenarios/qwen3-30b-a3b-h100-16.json", "scenarios/llama3-70b-h100-1024.json",
             "scenarios/io/llama3-70b-rapidfs.json"]


@pytest.mark.parametrize("path", SCENARIOS)
def test_run_to_dict_equals_cli_json(cli, path):
    network = "flow" if path == "scenarios/default.json" else "analytical"
    expected = cli("run", path, "--network", network, "--format", "json")
    assert expected.returncode == 0, expected.stderr
    result = ctwin.run(path, network=network)
    assert result.to_dict() == json.loads(expected.stdout)
    assert result.step_time_s == json.loads(expected.stdout)["step_time_s"]


def test_changed_scenario_equals_cli_set(cli):
    s = ctwin.Scenario.load("scenarios/default.json").with_(**{"parallel.tp": 4}).with_(
        {"cluster.server.nics.bandwidth": "800Gbps", "network": "analytical"})
    expected = cli("run", "scenarios/default.json", "--set", "parallel.tp=4", "--set",
                   "cluster.server.nics.bandwidth=800Gbps", "--network", "analytical", "--format", "json")
    assert ctwin.run(s).to_dict() == json.loads(expected.stdout)
    assert s.changes == {"parallel.tp": 4, "cluster.server.nics.bandwidth": "800Gbps", "network": "analytical"}


def test_run_flow_sample_equals_cli(cli):
    # Llama 3 8B on 1,024 H100 (tp 8, pp 2): one DP replica of each stage on the shared fabric.
    sets = {"gpus": 1024, "training.global_batch": 64, "parallel.tp": 8, "parallel.pp": 2}
    args = [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    expected = cli("run", "scenarios/default.json", *args, "--flow-sample", "replica", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    s = ctwin.Scenario.load("scenarios/default.json").with_(sets)
    result = ctwin.run(s, flow_sample="replica")
    assert result.to_dict() == json.loads(expected.stdout)
    assert result.to_dict()["flow_sample"]["kind"] == "replica"
    for bad in ({"flow_sample": "half"}, {"flow_sample": "su", "network": "analytical"}):
        with pytest.raises(ctwin.InputError) as error:
            ctwin.run("scenarios/default.json", **bad)
        assert error.value.file == "flow_sample", str(error.value)


def test_breakdown_and_memory_frames_add_up():
    step = ctwin.run("scenarios/default.json", network="analytical")
    assert isinstance(step.breakdown, pd.DataFrame)
    assert step.breakdown["seconds"].sum() == pytest.approx(step.step_time_s, rel=1e-9)
    assert step.breakdown["share"].sum() == pytest.approx(1.0, rel=1e-9)
    assert step.memory["gib"].sum() == pytest.approx(step.memory_gib_per_gpu["total"], rel=1e-9)


def test_trace_timeline_covers_the_step(tmp_path):
    path = tmp_path / "trace.json"
    step = ctwin.run("scenarios/default.json", network="analytical", trace=path)
    assert json.loads(path.read_text()) == step.trace
    timeline = step.timeline()
    assert set(timeline["stream"]) >= {"compute"}
    end_s = (timeline["start_ms"] + timeline["duration_ms"]).max() / 1e3
    assert end_s <= step.step_time_s * (1 + 1e-9)
    assert end_s > 0.5 * step.step_time_s
    with pytest.raises(ValueError):
        ctwin.run("scenarios/default.json", network="analytical").timeline()


def test_scale_fabric_collective_traffic_equal_the_cli(cli):
    scaled = ctwin.scale("scenarios/default.json", [64, 128, 256], network="analytical")
    expected = cli("scale", "scenarios/default.json", "--gpus", "64,128,256", "--network", "analytical", "--format", "json")
    assert scaled.to_dict() == json.loads(expected.stdout)
    assert list(scaled.points["gpus"]) == [64, 128, 256]
    assert list(scaled.points["warnings"]) == [[], [], []]  # a sound build: every size says so

    # 96 GPUs are dp 24, which does not divide the 128 sequences: the nearest batch that runs, said.
    uneven = ctwin.scale("default", [64, 96], network="analytical", batch="nearest")
    expected = cli("scale", "default", "--gpus", "64,96", "--network", "analytical", "--format", "json")
    assert uneven.to_dict() == json.loads(expected.stdout)
    assert uneven.to_dict()["points"][1]["global_batch"] == 120
    with pytest.raises(ctwin.InputError):
        ctwin.scale("default", [64], weak=True, batch="fixed")

    fabric = ctwin.fabric("dgx-h100-superpod", 1024, {"fabric.oversubscription.leaf": 2})
    expected = cli("fabric", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "1024", "--set",
                   "fabric.oversubscription.leaf=2", "--format", "json")
    assert fabric.to_dict() == json.loads(expected.stdout)
    assert fabric.switches["count"].sum() > 0

    table = ctwin.collective("dgx-h100-superpod", 64, op="all_gather", end="1G", network="analytical")
    expected = json.loads(cli("collective", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "64", "--op",
                              "all_gather", "-e", "1G", "--network", "analytical", "--format", "json").stdout)
    assert table.attrs["report"] == expected
    assert list(table["busbw_GBps"]) == [row["busbw_GBps"] for row in expected["rows"]]

    played = ctwin.traffic("dgx-h100-superpod", 64, pattern="rail_ring", size="4MiB")
    expected = json.loads(cli("traffic", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "64", "--pattern",
                              "rail_ring", "--size", "4MiB", "--format", "json").stdout)
    assert played.to_dict() == expected
    assert "wall_s" not in expected


def test_collective_and_traffic_flags_equal_the_cli(cli):
    # --degrade, --every-transfer and --full-solve, which Python lacked (issue 37's parity test lists them).
    base = ["--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "16", "--format", "json"]
    expected = json.loads(cli("collective", *base, "--op", "all_reduce", "-b", "1M", "-e", "4M", "--network", "flow",
                              "--degrade", "nic:3=0.25", "--every-transfer").stdout)
    table = ctwin.collective("dgx-h100-superpod", 16, begin="1M", end="4M", degrade=["nic:3=0.25"], every_transfer=True)
    assert table.attrs["report"] == expected
    healthy = ctwin.collective("dgx-h100-superpod", 16, begin="1M", end="4M", every_transfer=True)
    assert (table["time_us"] > healthy["time_us"]).all()  # a quarter-rate NIC slows every size
    with pytest.raises(ctwin.InputError) as error:
        ctwin.collective("dgx-h100-superpod", 16, degrade=["nic:99=0.5"])
    assert "degrade" in str(error.value)
    expected = json.loads(cli("traffic", *base, "--pattern", "alltoall", "--size", "1MiB", "--full-solve").stdout)
    assert ctwin.traffic("dgx-h100-superpod", 16, size="1MiB", full_solve=True).to_dict() == expected
    with pytest.raises(ctwin.InputError) as error:
        ctwin.traffic("dgx-h100-superpod", 16, calibration="nosuch-calibration.json")
    assert "nosuch-calibration.json" in str(error.value)


def test_routing_keyword_equals_the_cli_flag(cli):
    # routing= is --routing: the same report as the CLI's, and on a build whose alltoall climbs to
    # the spines at 2:1 (two SUs of 8 nodes) adaptive is faster than ECMP's hash.
    changes = {"fabric.oversubscription.leaf": 2, "fabric.nodes_per_su": 8}
    expected = json.loads(cli("collective", "--cluster", "topologies/dgx-h100-superpod.json", "--gpus", "128", "--op",
                              "alltoall", "-b", "16M", "-e", "16M", "--network", "analytical", "--routing", "adaptive",
                              "--set", "fabric.oversubscription.leaf=2", "--set", "fabric.nodes_per_su=8",
                              "--format", "json").stdout)
    spread = ctwin.collective("dgx-h100-superpod", 128, op="alltoall", begin="16M", end="16M", network="analytical",
                              changes=changes, routing="adaptive")
    assert spread.attrs["report"] == expected
    hashed = ctwin.collective("dgx-h100-superpod", 128, op="alltoall", begin="16M", end="16M", network="analytical",
                              changes=changes, routing="ecmp")
    assert spread["busbw_GBps"][0] > hashed["busbw_GBps"][0]
    step = ctwin.run("scenarios/default.json", network="analytical", routing="ecmp").to_dict()
    assert "cluster.fabric.routing=ecmp" in step["inputs"]["set"]


def test_bad_input_raises_input_error_naming_the_field():
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.run(ctwin.Scenario.load("scenarios/default.json").with_(**{"parallel.tp": 3}), network="analytical")
    assert isinstance(raised.value, ValueError)
    assert raised.value.file.endswith("scenarios/default.json")
    assert "tp" in str(raised.value)
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.Scenario.load("scenarios/default.json").with_(network="ns3").validate()
    assert raised.value.field == "/network"
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.fabric("dgx-h100-superpod", 64, {"server.nics.bandwidth": "400"})
    assert raised.value.field.endswith("bandwidth")
    with pytest.raises(ctwin.InputError):
        ctwin.Scenario.load("scenarios/no-such-file.json")
    with pytest.raises(ctwin.InputError):
        ctwin.collective("dgx-h100-superpod", 64, op="all_reduce_fast")


def test_gpu_counts_out_of_range_are_refused_naming_the_argument_not_wrapped():
    # Issue 36: gpus=2**32+64 went through a 32-bit cast and built 64 GPUs.
    for gpus in (2**32 + 64, 2**64, 0, -8, 8.0, True):
        with pytest.raises(ctwin.InputError) as raised:
            ctwin.fabric("dgx-h100-superpod", gpus)
        assert raised.value.file == "gpus", gpus
        assert "gpus" in str(raised.value)
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.plan("scenarios/default.json", gpus=2**32 + 64)
    assert raised.value.file == "gpus"


def test_deep_nesting_is_an_input_error_not_a_dead_interpreter():
    # Issue 36: a pipeline_layout of 30,000 '(' overflowed the stack and killed the interpreter.
    layout = "(" * 30000 + "t" + ")" * 30000
    with pytest.raises(ctwin.InputError, match="nested deeper than 16"):
        ctwin.Scenario.load("scenarios/default.json").with_(**{"parallel.pipeline_layout": layout}).validate()


def test_threads_give_the_serial_results():
    # Steps of about a second each (Llama 3 70B on 1,024 GPUs, every op's traffic on one flow
    # simulation).
    base = ctwin.Scenario.load("scenarios/llama3-70b-h100-1024.json").with_(network="flow")
    scenarios = [base.with_(**{"training.global_batch": batch}) for batch in (256, 512, 768, 1024)]
    serial = [ctwin.run(s, context=ctwin.EvalContext()).to_dict() for s in scenarios]

    results = [None] * len(scenarios)
    context = ctwin.EvalContext()

    def worker(i):
        results[i] = ctwin.run(scenarios[i], context=context).to_dict()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(scenarios))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == serial


def test_a_call_releases_the_gil_while_ctwin_works():
    # Whether Python code runs while a call is inside C++, counted rather than timed, so that it
    # holds on a loaded machine. A call that kept the GIL would let the counting thread run at
    # most about one switch interval (sys.getswitchinterval(), 5 ms) before it (a C call holding
    # the GIL, sorted() of 3M floats for 2 s, let it count 1.4 intervals' worth); one that
    # releases it lets it count through the whole call, ~1 s here. Wall-clock speed-ups belong in
    # benchmarks, not in tests.
    scenario = ctwin.Scenario.load("scenarios/llama3-70b-h100-1024.json").with_(network="flow")
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1

    thread = threading.Thread(target=counter)
    thread.start()
    try:
        before = count[0]
        time.sleep(0.2)  # this thread holds no GIL: the counter's free rate
        per_interval = (count[0] - before) / 0.2 * sys.getswitchinterval()
        before = count[0]
        ctwin.run(scenario, context=ctwin.EvalContext())
        during = count[0] - before
    finally:
        stop.set()
        thread.join()
    assert during > 10 * per_interval, (during, per_interval)


def test_public_functions_have_docstrings():
    for name in ctwin.__all__:
        assert getattr(ctwin, name).__doc__, name
    assert "training step" in pydoc.render_doc(ctwin.run)


def test_run_with_a_calibration_equals_cli(cli, tmp_path):
    bundle = tmp_path / "bundle.json"
    made = cli("calibrate", "--bundle", str(bundle), "--merge", "models/gpus/calibrated/h100-sxm.json")
    assert made.returncode == 0, made.stderr
    expected = cli("run", "scenarios/default.json", "--network", "analytical", "--calibration", str(bundle),
                   "--format", "json")
    assert expected.returncode == 0, expected.stderr
    result = ctwin.run("scenarios/default.json", network="analytical", calibration=bundle)
    assert result.to_dict() == json.loads(expected.stdout)
    # The bundle's GPU part (training_time_scale 1.27) slows the step.
    assert result.step_time_s > ctwin.run("scenarios/default.json", network="analytical").step_time_s
    with pytest.raises(ctwin.InputError, match="calibration"):
        ctwin.run("scenarios/default.json", calibration=tmp_path / "missing.json")


def test_checkpoint_field_through_run_equals_cli(cli):
    # A scenario's checkpoint (docs/io.md#checkpoints-in-the-step) reaches ctwin.run unchanged.
    path = "scenarios/io/llama3-70b-rapidfs.json"
    checkpoint = {"every_steps": 100, "mode": "async", "tier": "pfs"}
    s = ctwin.Scenario.load(path).with_({"cluster.storage.tiers.0.write_per_server": "10GiBps",
                                          "checkpoint": checkpoint, "network": "analytical"})
    expected = cli("run", path, "--set", "cluster.storage.tiers.0.write_per_server=10GiBps", "--set",
                   "checkpoint=" + json.dumps(checkpoint), "--network", "analytical", "--format", "json")
    assert expected.returncode == 0, expected.stderr
    got = ctwin.run(s).to_dict()
    assert got == json.loads(expected.stdout)
    assert got["checkpoint"]["bytes"] == got["checkpoint"]["parameters"] * 14
    assert got["checkpoint"]["mode"] == "async" and got["checkpoint"]["stall_s"] == got["checkpoint"]["copy_s"]
