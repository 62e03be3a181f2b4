"""The compute twin's GEMM and layer times, and fitting the twin to your own measurements: a GPU
profile to a GEMM sweep, a cluster to its nccl-tests logs."""

from __future__ import annotations

import json
import os
from typing import Sequence

import pandas as pd

from . import _args, _core
from .context import EvalContext, default_context
from .results import CalibrationResult, LayerResult
from .scenario import Scenario, as_scenario

_PathLike = str | os.PathLike




def gemm(gpu: _PathLike, m: int | None = None, n: int | None = None, k: int | None = None, dtype: str = "bf16",
         shapes: _PathLike | None = None) -> pd.DataFrame:
    """Predicted time of GEMMs C[m,n] = A[m,k] B[k,n] on a GPU profile (``ctwin gemm``).

    ``gpu``: a profile file or a name under models/gpus ("h100-sxm", "h200-sxm", "b200").
    Either one shape (``m``, ``n``, ``k`` in elements, ``dtype`` one of tf32, bf16, fp16, fp8,
    fp4) or ``shapes``: a CSV with columns m,n,k,dtype (a measurement column is ignored).

    Returns one row per shape: m, n, k, dtype, time_us (microseconds), tflops (achieved
    TFLOP/s, 1e12 FLOP/s) and model (which part of the model timed it). ``attrs["gpu"]`` is the
    profile's name, ``attrs["report"]`` the whole ``ctwin gemm --format json``.
    """
    dims = [_args.optional_integer(name, value, 1, _args.MAX_DIM) for name, value in (("m", m), ("n", n), ("k", k))]
    text = _core.gemm(_args.path("gpu", gpu), *dims, _args.text("dtype", dtype),
                      _args.optional_path("shapes", shapes))
    report = json.loads(text)
    frame = pd.DataFrame(report["rows"], columns=["m", "n", "k", "dtype", "time_us", "tflops", "model"])
    frame.attrs.update({"gpu": report["gpu"], "report": report})
    return frame


def calibrate_gemm(csv: _PathLike, base: _PathLike, output: _PathLike, holdout: _PathLike | None = None) -> CalibrationResult:
    """Fits a GPU profile's GEMM efficiency table to a measured sweep (``ctwin calibrate --gemm``).

    ``csv``: measured shapes (columns m,n,k,dtype and time_us or tflops, as
    validation/collect/gemm_sweep.py writes). ``base``: the profile to calibrate (a file or a
    name under models/gpus). ``output``: the calibrated profile to write. ``holdout``: measured
    shapes the fit never sees; their error is the honest one.

    Returns a :class:`CalibrationResult`: ``to_dict()`` equals ``ctwin calibrate --gemm
    --format json``; ``.fit`` and ``.holdout`` are error tables (|predicted / measured - 1| as
    fractions, per dtype, for large shapes, overall); ``.output`` the file written.
    """
    output = _args.path("output", output)
    report = json.loads(_core.calibrate_gemm(_args.path("csv", csv), _args.path("base", base), output,
                                             _args.optional_path("holdout", holdout)))
    return CalibrationResult(report, "gemm", os.fsdecode(output))


def calibrate_layers(layers: _PathLike, base: _PathLike, output: _PathLike,
                     holdout: _PathLike | None = None) -> CalibrationResult:
    """Fits a GPU profile's training_time_scale to measured layer times (``ctwin calibrate --layers``).

    ``layers``: the JSON validation/collect/layer_bench.py writes (forward and backward ms per
    model, sequence, batch, precision and phase; the "hot" rows are fitted when there are any).
    ``base``: the profile to scale (a file or a name under models/gpus); ``output``: the scaled
    profile to write; ``holdout``: another such file, only scored.

    Returns a :class:`CalibrationResult`: ``to_dict()`` equals ``ctwin calibrate --layers
    --format json`` (``training_time_scale``, ``base_scale``, median |error| of the fit and the
    held-out rows as fractions); ``.fit`` / ``.holdout`` list every row.
    """
    output = _args.path("output", output)
    report, rows = _core.calibrate_layers(_args.path("layers", layers), _args.path("base", base), output,
                                          _args.optional_path("holdout", holdout))
    return CalibrationResult(json.loads(report), "layers", os.fsdecode(output), json.loads(rows))


def calibrate_trace(trace: _PathLike, scenario: Scenario | str | os.PathLike, base: _PathLike, output: _PathLike,
                    context: EvalContext | None = None) -> CalibrationResult:
    """Fits a GPU profile's training_time_scale to a profiler trace (``ctwin calibrate --trace``).

    ``trace``: a step's profiler trace as :func:`ctwin.validate` ``kind="trace"`` reads it;
    ``scenario``: the scenario it ran (a Scenario, file or bundled name), run on ``base`` (the
    profile to scale: a file or a name under models/gpus); ``output``: the scaled profile to write.
    The scale makes the twin's compute inside the layers (every class but NCCL) equal the trace's.

    Returns a :class:`CalibrationResult`: ``to_dict()`` equals ``ctwin calibrate --trace --format
    json`` (``training_time_scale``, ``measured_over_predicted`` per class and phase, ``after_fit``);
    ``.fit`` is the comparison before the fit, per class and phase.
    """
    output = _args.path("output", output)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    report = _core.calibrate_trace(_args.path("trace", trace), as_scenario(scenario)._core, _args.path("base", base),
                                   output, ctx._core)
    return CalibrationResult(json.loads(report), "trace", os.fsdecode(output))


def calibrate_training(cases: _PathLike, base: _PathLike, output: _PathLike, holdout: _PathLike | None = None,
                       only: str | Sequence[str] | None = None, network: str = "flow",
                       jobs: int | None = None) -> CalibrationResult:
    """Fits a GPU profile's training_time_scale to measured training runs (``ctwin calibrate --training``).

    ``cases``: measured runs in the format of validation/training/cases.json; the dense runs on
    ``base``'s GPU are fitted (the predicted throughput matched to the measured in geometric
    mean), its mixture-of-experts runs only judged. ``base``: the profile to scale; ``output``:
    the scaled profile to write; ``holdout``: another cases file, only judged. ``only``: runs
    whose id contains this text (or any of these). ``network``: "analytical" or "flow".
    ``jobs``: runs simulated at once (default one per core; results do not depend on it).

    Returns a :class:`CalibrationResult`: ``to_dict()`` equals ``ctwin calibrate --training
    --format json``; ``.fit``, ``.holdout`` and ``.moe`` list every run.
    """
    names = _args.texts("only", only, one_allowed=True)
    jobs = _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS)
    output = _args.path("output", output)
    report, rows = _core.calibrate_training(_args.path("cases", cases), _args.path("base", base), output,
                                            _args.optional_path("holdout", holdout), names,
                                            _args.text("network", network), jobs or os.cpu_count() or 1)
    return CalibrationResult(json.loads(report), "training", os.fsdecode(output), json.loads(rows))


def calibrate_nccl(cluster: _PathLike, logs: _PathLike | Sequence[_PathLike], output: _PathLike, gpus: int | None = None,
                   op: str | None = None, algorithm: str = "auto", protocol: str = "auto", network: str = "flow",
                   holdout: _PathLike | Sequence[_PathLike] | None = None) -> CalibrationResult:
    """Fits a cluster's link efficiencies and protocol costs to its nccl-tests logs
    (``ctwin calibrate --nccl``).

    ``cluster``: the topology file the logs ran on. ``logs``: one or more logs as nccl-tests
    printed them; write "FILE@N" for a log that does not list its N ranks. ``gpus``: ranks of
    logs without '#  Rank' lines. ``op``: the collective, for logs that do not name it.
    ``algorithm`` / ``protocol``: NCCL_ALGO / NCCL_PROTO the logs ran with. ``network``:
    "analytical" or "flow". ``holdout``: logs the fit never sees. ``output``: the calibration
    file to write (what ``calibration=`` and ``--calibration`` read back).

    Returns a :class:`CalibrationResult`: ``to_dict()`` equals ``ctwin calibrate --nccl
    --format json``; ``.fit`` / ``.holdout`` per-log median |busbw error| before and after,
    ``.parameters`` the fitted scales and ``.rows`` every size of every log: measured busbw
    against the prediction with the defaults and calibrated (GB/s, 1e9 B/s).
    """
    output = _args.path("output", output)
    if logs is None:
        raise _args.refuse("logs", "a log file or a list of them", logs)
    report, rows = _core.calibrate_nccl(_args.path("cluster", cluster), _args.paths("logs", logs), output,
                                        _args.optional_integer("gpus", gpus, 1, _args.MAX_GPUS) or 0,
                                        _args.optional_text("op", op), _args.text("algorithm", algorithm),
                                        _args.text("protocol", protocol), _args.text("network", network),
                                        _args.paths("holdout", holdout))
    return CalibrationResult(json.loads(report), "nccl", os.fsdecode(output), json.loads(rows))


def read_nccl_log(path: _PathLike, op: str | None = None) -> pd.DataFrame:
    """The rows an nccl-tests ``*_perf`` binary printed, as ctwin reads them.

    One row per size: size_bytes, count (elements), type, redop, time_us (microseconds),
    algbw_GBps and busbw_GBps (GB/s, 1e9 B/s: out-of-place) and the in-place figures
    (NaN where the log prints none). ``op`` names the collective when the log does not.
    ``attrs``: "source", "op" (None when unnamed), "ranks" (None when unlisted).
    """
    report = json.loads(_core.read_nccl_log(_args.path("path", path), _args.optional_text("op", op)))
    frame = pd.DataFrame(report["rows"], columns=["size_bytes", "count", "type", "redop", "time_us", "algbw_GBps",
                                                  "busbw_GBps", "in_place_time_us", "in_place_algbw_GBps",
                                                  "in_place_busbw_GBps"])
    frame.attrs.update({"source": report["source"], "op": report["op"], "ranks": report["ranks"]})
    return frame


def layer(model: str | os.PathLike | None = None, gpu: _PathLike = "h100-sxm", tp: int = 1, seq: int = 4096,
          micro_batch: int = 1, precision: str = "bf16", recompute: str = "none", attention: str = "flash",
          layer: int = 0, measured: _PathLike | None = None, stack: _PathLike | None = None) -> LayerResult:
    """One transformer layer's kernels as the compute twin times them (``ctwin layer``).

    ``model``: a model file (ctwin format or Hugging Face config.json) or a name under
    models/llm. ``gpu``: a profile file or a name under models/gpus. ``seq``: sequence length in
    tokens; ``micro_batch``: sequences per micro-batch; ``precision``: bf16, fp16 or fp8;
    ``recompute``: none, selective or full; ``attention``: flash or unfused; ``tp``: the layer's
    share on one rank of a tensor-parallel group (its collectives left out); ``layer``: which
    layer (0-based; sliding-window and MoE layers differ); ``stack``: a software stack (a name under
    models/stacks or a file; ``"pytorch-eager"`` prices the kernels eager PyTorch runs, as
    layer_bench.py measures them; ``None``: the fused kernels).

    ``measured``: instead of ``model``, layer times measured by
    validation/collect/layer_bench.py (JSON); each row is predicted on ``gpu`` with its error.

    Returns a :class:`LayerResult` whose ``to_dict()`` equals ``ctwin layer --format json``
    (kernel times in microseconds, totals in milliseconds).
    """
    text = _core.layer(_args.optional_path("model", model), _args.path("gpu", gpu),
                       _args.integer("tp", tp, 1, _args.MAX_DIM), _args.integer("seq", seq, 1, _args.MAX_DIM),
                       _args.integer("micro_batch", micro_batch, 1, _args.MAX_DIM),
                       _args.text("precision", precision), _args.text("recompute", recompute),
                       _args.text("attention", attention), _args.integer("layer", layer, 0, _args.MAX_DIM),
                       _args.optional_path("measured", measured), _args.optional_path("stack", stack))
    return LayerResult(json.loads(text))
