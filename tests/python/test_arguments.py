"""Every public function, every keyword, values of the wrong type or range: each is an InputError
naming the keyword, raised before ctwin's core is reached (issue 36: pybind11's TypeError dumps
named no argument, and 2**32+64 GPUs wrapped to 64).

The calls into ``ctwin._core`` are replaced by a stub that fails the test, so a value that gets
past the checks is caught at once, without running a simulation.
"""

import inspect
import math
import os

import pytest

import ctwin
from ctwin import _core

# What each function needs besides the keyword under test: valid, cheap values.
BASELINE = {
    "run": {"scenario": "default"},
    "scale": {"scenario": "default", "gpus": [64]},
    "fabric": {"cluster": "dgx-h100-superpod", "gpus": 8},
    "collective": {"cluster": "dgx-h100-superpod", "gpus": 8},
    "traffic": {"cluster": "dgx-h100-superpod", "gpus": 8},
    "size": {"cluster": "dgx-h100-superpod", "gpus": 8},
    "accept": {"cluster": "dgx-h100-superpod", "gpus": 8},
    "plan": {"scenario": "default"},
    "sweep": {"scenario": "default", "grid": {"parallel.tp": [1, 2]}},
    "rank_split": {"scenario": "default", "key": {"tp": 2}},
    "goodput": {"scenario": "default", "days": 1},
    "cluster": {"jobs": "scenarios/cluster/two-jobs.json"},
    "gemm": {"gpu": "h100-sxm", "m": 1024, "n": 1024, "k": 1024},
    "calibrate_gemm": {"csv": "a.csv", "base": "h100-sxm", "output": "out.json"},
    "calibrate_layers": {"layers": "a.json", "base": "h100-sxm", "output": "out.json"},
    "calibrate_training": {"cases": "a.json", "base": "h100-sxm", "output": "out.json"},
    "calibrate_trace": {"trace": "a.json", "scenario": "default", "base": "h100-sxm", "output": "out.json"},
    "calibrate_nccl": {"cluster": "dgx-h100-superpod", "logs": ["a.log"], "output": "out.json"},
    "read_nccl_log": {"path": "a.log"},
    "layer": {"model": "llama3-8b"},
    "validate": {},
    "explain": {"chain": "scenarios/explain/seed000-40x.json"},
}
FUNCTIONS = sorted(BASELINE)
# The _core entry points the functions call; Scenario.load stays real (the baselines name "default").
CORE_CALLS = ["run", "scale", "fabric", "collective", "traffic", "size", "accept", "plan", "sweep", "rank_split",
              "goodput", "gemm", "calibrate_gemm", "calibrate_layers", "calibrate_training", "calibrate_nccl",
              "read_nccl_log", "layer", "validate_nccl", "validate_training", "validate_training_calibrated",
              "validate_scaling", "validate_trace", "calibrate_trace", "merge_plans", "merge_sweeps", "explain",
              "cluster_file", "cluster_document"]
# Keywords that are not values: a Dask client is duck-typed.
SKIPPED = {("plan", "client"), ("sweep", "client")}

NOT_UTF8 = os.fsdecode(b"\xff")


class ReachedCore(Exception):
    pass


@pytest.fixture
def stubbed_core(monkeypatch):
    def stub(*args, **kwargs):
        raise ReachedCore()
    for name in CORE_CALLS:
        monkeypatch.setattr(_core, name, stub)


def bad_values(annotation: str, default) -> list:
    """Values a keyword of this annotation must refuse."""
    optional = default is not inspect.Parameter.empty and default is None or "None" in annotation
    nothing = [] if optional else [None]
    if "Scenario" in annotation:
        return [3, 2.5, ["default"], b"default", True] + nothing
    if "EvalContext" in annotation:
        return [3, "context", {}]
    if "Mapping" in annotation:
        return [3, 2.5, True] + (["parallel.tp=2"] if "Sequence" not in annotation else ["parallel.tp=2", {"a": math.nan}])
    if "Sequence[int]" in annotation:
        return ["64", 64, [64.0], [True], [-1], [0], [2**64], ["64"]] + nothing
    if annotation.startswith("Sequence[str | os.PathLike]"):
        return [3, "default", [3], [b"x"]]
    if "Sequence[_PathLike]" in annotation:
        return [3, [3], [b"x"], [None]] + nothing
    if "Sequence[str]" in annotation:
        one = [] if annotation.startswith("str |") else ["gpu:3=0.5"]
        return [3, [3], [None], b"x", [b"x"], {"a": 1}] + one
    if annotation.startswith("bool |"):  # trace: a flag or a path
        return [3, 2.5, ["x"], b"x"]
    if annotation == "bool":
        return ["yes", 1, 0, None, [True]]
    if annotation.startswith("str | int"):
        return [2.5, True, -1, 2**64, [1], None, b"8"]
    if annotation.startswith("int"):
        return ["3", 3.5, 8.0, [3], True, -1, 2**64, -2**63, math.nan] + nothing
    if annotation.startswith("float"):
        return ["1", [1.0], True, math.nan, math.inf, -math.inf, 10**400] + nothing
    if "PathLike" in annotation:
        return [3, 2.5, ["a"], b"a", True, "a\0b"] + nothing
    if annotation.startswith("str"):
        return [3, 2.5, ["a"], b"a", True, "a\ud800"] + nothing
    raise AssertionError(f"no bad values for annotation {annotation!r}")


def cases():
    for name in FUNCTIONS:
        function = getattr(ctwin, name)
        for keyword, parameter in inspect.signature(function).parameters.items():
            if (name, keyword) in SKIPPED:
                continue
            for value in bad_values(str(parameter.annotation), parameter.default):
                yield pytest.param(name, keyword, value, id=f"{name}-{keyword}-{value!r}"[:90])


def call(name: str, keyword: str, value):
    arguments = dict(BASELINE[name])
    arguments[keyword] = value
    if name == "validate" and keyword in ("cases", "profiles", "jobs"):
        arguments["kind"] = "training"  # the keywords only a training validation reads
    getattr(ctwin, name)(**arguments)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_baseline_reaches_the_core(stubbed_core, name):
    with pytest.raises(ReachedCore):
        getattr(ctwin, name)(**BASELINE[name])


@pytest.mark.parametrize("name,keyword,value", list(cases()))
def test_a_bad_value_is_an_input_error_naming_the_keyword(stubbed_core, name, keyword, value):
    with pytest.raises(ctwin.InputError) as raised:
        call(name, keyword, value)
    message = str(raised.value)
    assert raised.value.file.startswith(keyword) or message.startswith(keyword), (keyword, message)
    assert "\n" not in message and len(message) < 300, message


def test_every_public_function_is_covered():
    public = {n for n in ctwin.__all__ if inspect.isfunction(getattr(ctwin, n))}
    assert public == set(FUNCTIONS)


@pytest.mark.parametrize("method,arguments,keyword", [
    ("load", {"path": 3}, "path"),
    ("load", {"path": b"scenarios/default.json"}, "path"),
    ("load", {"path": "a\0b"}, "path"),
    ("from_json", {"text": 3}, "text"),
    ("from_json", {"text": "{}", "source": None}, "source"),
    ("from_dict", {"document": "{}"}, "document"),
    ("from_dict", {"document": {"a": math.nan}}, "document"),
    ("from_dict", {"document": {}, "source": 3}, "source"),
])
def test_scenario_constructors_name_the_argument(method, arguments, keyword):
    with pytest.raises(ctwin.InputError) as raised:
        getattr(ctwin.Scenario, method)(**arguments)
    assert raised.value.file == keyword, str(raised.value)


def test_a_changed_value_json_cannot_hold_is_refused_naming_the_field():
    s = ctwin.Scenario.load("default")
    for value in (math.nan, math.inf, object()):
        with pytest.raises(ctwin.InputError) as raised:
            s.with_({"training.global_batch": value})
        assert raised.value.file == "training.global_batch"
    with pytest.raises(ctwin.InputError) as raised:
        s.with_(["parallel.tp", 2])
    assert raised.value.file == "changes"


def test_a_file_name_that_is_not_utf8_reaches_the_reader_and_is_named():
    # os.listdir gives such a name as lone surrogates; pybind11 raised UnicodeEncodeError.
    with pytest.raises(ctwin.InputError) as raised:
        ctwin.run(f"/nonexistent/{NOT_UTF8}.json")
    assert "\ufffd" in str(raised.value)
    with pytest.raises(ctwin.InputError):
        ctwin.fabric(f"/nonexistent/{NOT_UTF8}.json", 8)


def test_out_of_range_integers_reach_no_cast():
    # Against the real core: none of these may wrap or overflow into a run.
    for call_, keyword in ((lambda: ctwin.fabric("dgx-h100-superpod", 2**64), "gpus"),
                           (lambda: ctwin.scale("default", [2**32 + 64]), "gpus[0]"),
                           (lambda: ctwin.goodput("default", 1, seed=2**64), "seed"),
                           (lambda: ctwin.goodput("default", 1, runs=2**31), "runs"),
                           (lambda: ctwin.traffic("dgx-h100-superpod", 8, steps=2**31), "steps"),
                           (lambda: ctwin.layer("llama3-8b", seq=2**40), "seq")):
        with pytest.raises(ctwin.InputError) as raised:
            call_()
        assert raised.value.file == keyword


def test_numpy_numbers_and_arrays_are_taken_as_python_ones(stubbed_core):
    # A DataFrame's column gives numpy scalars: they are counts and rates like Python's.
    np = pytest.importorskip("numpy")
    for call_ in (lambda: ctwin.fabric("dgx-h100-superpod", np.int64(8)),
                  lambda: ctwin.scale("default", np.array([64, 128])),
                  lambda: ctwin.accept("dgx-h100-superpod", 8, noise=np.float32(0.1)),
                  lambda: ctwin.run("default", all_ranks=np.bool_(False))):
        with pytest.raises(ReachedCore):
            call_()
