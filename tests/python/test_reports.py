"""The result classes of ctwin._core (issue 37 item 2): native objects holding the library's report,
whose to_dict() is the CLI's --format json, whose to_json() is its bytes, and whose headline
properties read that same document; and the options objects _core.goodput and _core.plan take."""

import copy
import json
import pickle

import pytest

import ctwin
from ctwin import _core

GOODPUT = ["scenarios/default.json", "--days", "2", "--runs", "20", "--step-time", "2s", "--checkpoint-interval", "30min"]


def goodput_native():
    return ctwin.goodput("scenarios/default.json", days=2, runs=20, step_time="2s", checkpoint_interval="30min").native


def cases():
    """(command line, the _core result of the same question) for cheap questions of four commands."""
    run = ctwin.run("scenarios/default.json", network="analytical")
    options = _core.CollectiveOptions()
    options.cluster, options.gpus, options.begin, options.end, options.network = "dgx-h100-superpod", 16, "1M", "4M", "analytical"
    collective = _core.collective(options, ctwin.EvalContext()._core)
    plan = ctwin.plan("scenarios/default.json", top=3, flow_top=0, fix=["parallel.tp=8", "parallel.pp=1"], jobs=1)
    return [(["run", "scenarios/default.json", "--network", "analytical"], run.native),
            (["collective", "--cluster", "dgx-h100-superpod", "--gpus", "16", "--begin", "1M", "--end", "4M", "--network", "analytical"],
             collective),
            (["goodput", *GOODPUT], goodput_native()),
            (["plan", "scenarios/default.json", "--top", "3", "--flow-top", "0", "--fix", "parallel.tp=8", "--fix",
              "parallel.pp=1", "--jobs", "1"], plan.native)]


@pytest.fixture(scope="module")
def reports(ctwin_binary):
    return cases()


@pytest.mark.parametrize("index", range(4))
def test_to_dict_and_to_json_are_the_command_json(cli, reports, index):
    args, native = reports[index]
    expected = cli(*args, "--format", "json")
    assert expected.returncode == 0, expected.stderr
    assert native.to_json() + "\n" == expected.stdout  # the library's bytes
    assert native.to_dict() == json.loads(expected.stdout)  # the same values, built natively
    # The dict through json.dumps and back through the library's serializer: the same bytes again,
    # so nothing in the dict (a float, a non-ASCII name, a key order) differs from the command's.
    # (Python's own json.dumps(indent=2) is not those bytes: a float's digits can differ, e.g.
    # 6.5229626829438976e+16 from the library is 6.522962682943898e+16 from Python, the same double.)
    assert type(native)(json.dumps(native.to_dict())).to_json() + "\n" == expected.stdout


@pytest.mark.parametrize("index", range(4))
def test_headlines_read_the_report(reports, index):
    _, native = reports[index]
    d = native.to_dict()
    assert type(native).__name__ in ("StepReport", "CollectiveReport", "GoodputReport", "PlanReport")
    assert isinstance(native, _core.Report) and len(type(native).headlines) >= 3
    for name in type(native).headlines:
        value = getattr(native, name)
        assert value is not None, name  # each headline names a field this command's report has
        assert f"{name}={value!r}" in repr(native)
    with pytest.raises(AttributeError):  # read-only
        setattr(native, type(native).headlines[0], 1)
    assert sorted(native.keys()) == sorted(d) and all(native[k] == d[k] for k in d)
    with pytest.raises(KeyError):
        native["no_such_field"]


def test_headline_values(reports):
    step, goodput, plan = reports[0][1], reports[2][1], reports[3][1]
    assert step.step_time_s == step.to_dict()["step_time_s"] > 0 and 0 < step.mfu < 1 and step.fits_memory is True
    assert goodput.ettr == goodput.to_dict()["ettr"]["mean"] and 0 < goodput.ettr <= 1
    assert goodput.interval_s == 1800.0  # --checkpoint-interval 30min
    assert plan.best_split == plan.to_dict()["results"][0]["split"] and plan.best_split["tp"] == 8


def test_reports_pickle_and_copy(reports):
    for _, native in reports:
        for other in (pickle.loads(pickle.dumps(native)), copy.deepcopy(native)):
            assert type(other) is type(native) and other.to_json() == native.to_json()


def test_public_results_keep_their_classes(reports):
    # The public functions return what they returned before (dicts behind ctwin's result classes);
    # the native object is behind them.
    result = ctwin.run("scenarios/default.json", network="analytical")
    assert isinstance(result, ctwin.StepResult) and isinstance(result.native, _core.StepReport)
    assert result.to_dict() == result.native.to_dict() and result.step_time_s == result.native.step_time_s
    assert ctwin.StepResult(result.to_dict()).native is None


def test_goodput_options():
    options = _core.GoodputOptions()
    assert (options.interval, options.spares, options.runs, options.seed, options.fp32_master) == ("auto", "5%", 1000, 1, True)
    options.days, options.runs, options.step_time, options.interval = 2, 20, "2s", "30min"
    scenario = ctwin.Scenario.load("scenarios/default.json")._core
    assert _core.goodput(scenario, options, ctwin.EvalContext()._core).to_json() == goodput_native().to_json()
    options.on_empty = "never"
    with pytest.raises(ctwin.InputError):  # the texts are read when the study runs, and named
        _core.goodput(scenario, options, ctwin.EvalContext()._core)


def test_plan_options_parse_as_they_are_set():
    options = _core.PlanOptions()
    assert (options.objective, options.flow_sample, options.gpus, options.exhaustive) == ("throughput", "full", None, False)
    options.memory_margin = "20%"
    options.objective = "mfu"
    assert options.memory_margin == pytest.approx(0.2) and options.objective == "mfu"
    for field, value in (("objective", "speed"), ("flow_sample", "half"), ("memory_margin", "90%"), ("jobs", 0)):
        with pytest.raises(ctwin.InputError) as raised:
            setattr(options, field, value)
        assert raised.value.file.lstrip("-") == field


def test_step_and_scale_options_parse_as_they_are_set():
    step, scale = _core.StepOptions(), _core.ScaleOptions()
    assert (step.comm, step.all_ranks, step.degrade, step.flow_sample) == ("auto", False, [], "full")
    assert (scale.gpus, scale.batch, scale.jobs) == ([], "nearest", 1)
    for options, field, value in ((step, "comm", "both"), (step, "flow_sample", "half"), (scale, "batch", "double"),
                                  (scale, "jobs", 0)):
        with pytest.raises(ctwin.InputError) as raised:
            setattr(options, field, value)
        assert raised.value.file == field
    # Errors found while the step runs name Python's keywords, not the command's flags.
    step.flow_sample = "su"
    scenario = ctwin.Scenario.load("scenarios/default.json").with_(network="analytical")._core
    with pytest.raises(ctwin.InputError) as raised:
        _core.run(scenario, step, ctwin.EvalContext()._core)
    assert raised.value.file == "flow_sample"


def test_build_options_are_read_when_the_call_runs_and_name_the_keyword():
    context = ctwin.EvalContext()._core
    for call, kind, field in (("collective", _core.CollectiveOptions, "op"), ("size", _core.SizeOptions, "network"),
                              ("accept", _core.AcceptOptions, "show")):
        options = kind()
        options.cluster, options.gpus = "dgx-h100-superpod", 16
        setattr(options, field, "bogus")
        with pytest.raises(ctwin.InputError) as raised:
            getattr(_core, call)(options, context)
        assert raised.value.file == field, call
    assert (_core.ExplainOptions().reverse, _core.ClusterOptions().steps, _core.ClusterOptions().compare_policies) == (
        False, 0, False)
