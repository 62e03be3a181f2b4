"""The twin against measurements: predicted vs measured, with the error."""

from __future__ import annotations

import json
import os
from typing import Sequence

import pandas as pd

from . import _args, _core
from .context import EvalContext, default_context
from .errors import InputError
from .scenario import Scenario, as_scenario

_NCCL_COLUMNS = ["setup", "role", "group", "ranks", "op", "size_bytes", "measured_busbw_GBps", "predicted_busbw_GBps",
                 "error", "measured_time_us", "predicted_time_us", "algo", "protocol", "calibrated"]


def validate(kind: str = "nccl", setups: str | os.PathLike = "validation/nccl/setups.json", role: str = "all",
             only: str | Sequence[str] | None = None, network: str = "flow", calibrated: bool = False,
             cases: str | os.PathLike | None = None, profiles: str | os.PathLike | None = None,
             jobs: int | None = None, trace: str | os.PathLike | None = None,
             scenario: Scenario | str | os.PathLike | None = None,
             context: EvalContext | None = None) -> pd.DataFrame:
    """Predicted against measured (``ctwin validate``).

    ``kind="nccl"``: the nccl-tests logs of a manifest (``setups``, default the bundled
    validation/nccl/setups.json), each predicted on the bundled topology that models its
    hardware; one row per measured size. ``role``: "check" (healthy runs, a test of the
    defaults), "underperforming" or "all". ``calibrated``: also calibrate on one log per cluster
    and predict the others (held out); those rows have ``calibrated`` True. Columns: setup, role,
    group (the acceptance group), ranks, op, size_bytes, measured_busbw_GBps and
    predicted_busbw_GBps (GB/s, 1e9 B/s), error (predicted / measured - 1), measured_time_us,
    predicted_time_us, algo, protocol, calibrated. ``attrs["skipped"]`` maps setups that could not
    be predicted to why; ``attrs["groups"]`` holds, per acceptance group and role, the median and
    max |error| of the rows at or above 1 MiB ("large") and below ("small").

    ``kind="training"``: published training runs (``cases``, default
    validation/training/cases.json) replayed by the twin; one row per run with id, group, gpus,
    split, metric (what the source measured: MFU, TFLOP/s or tokens/s per GPU), measured,
    predicted, error (predicted / measured - 1), step_time_s, mfu, ... ``profiles``: a folder of
    GPU profiles that replace the cases' profiles of the same name. ``jobs``: runs simulated at
    once (default one per core; results do not depend on it). ``attrs["summary"]`` and
    ``attrs["groups"]`` hold the median and max |error|.

    ``kind="scaling"``: published scaling runs (``cases``, default
    validation/training/scaling.json) replayed by ``ctwin scale``; one row per measured size with
    study, run, gpus, measured_mfu, predicted_mfu and error. ``attrs["studies"]`` holds, per study,
    the measured and predicted MFU ratio (largest size over smallest) and whether the trend is
    reproduced.

    ``only``: setups or runs whose id contains this text (or any of these). ``network``:
    "analytical" or "flow". ``attrs["report"]`` is the whole ``ctwin validate --format json``.
    ``kind="training", calibrated=True`` (``ctwin validate --training --calibrated``): each run
    predicted with the bundled profiles and with a training_time_scale fitted on its GPU's other
    dense runs (leave one out) and on its GPU's dense runs of other sources; MoE runs with the
    scale of all their GPU's dense runs. One row per run with id, group, gpu, dense, metric,
    measured, predicted_uncalibrated, error_uncalibrated and, where a fit exists,
    training_time_scale, fitted_on_runs, predicted_calibrated, error_calibrated and the
    other_sources columns (NaN where none). ``attrs["summary"]`` holds, for "every_run" and
    "dense", per group, the count, median and max |error| uncalibrated, calibrated and from
    other sources; ``attrs["gpus"]`` the scale fitted on all of each GPU's dense runs. Not with
    ``profiles`` (the fit makes its own).

    ``kind="trace"`` (``ctwin validate --trace FILE --scenario S``): a profiler trace (``trace``: a
    PyTorch profiler Chrome JSON, ``ctwin run --trace`` output, or ``nsys stats --report
    cuda_gpu_kern_sum --format csv``) against the twin's step of ``scenario`` (a Scenario, file or
    bundled name; its changes are the CLI's ``--set``), per kernel class and phase: one row per
    class and phase with class, phase, unit ("us per layer" for a layer's forward or backward per
    micro-batch on one device, "us per step" otherwise), measured_us, predicted_us and error
    (predicted / measured - 1; NaN where the trace has none of that class). ``attrs["summary"]``
    holds the median and max |error|, ``attrs["unclassified"]`` the longest kernels no class knows.
    ``context``: caches shared with other calls.
    """
    kind = _args.text("kind", kind)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext")
    if kind == "trace":
        if scenario is None or trace is None:
            raise InputError("kind='trace' needs trace= (the profiler trace) and scenario= (the scenario it ran)",
                             "trace" if trace is None else "scenario")
        ctx = ctx or default_context()
        report = json.loads(_core.validate_trace(_args.path("trace", trace), as_scenario(scenario)._core, ctx._core))
        frame = pd.DataFrame(report["rows"], columns=["class", "phase", "unit", "measured_us", "predicted_us", "error"])
        frame["error"] = frame["error"].astype(float)
        frame.attrs.update({"report": report, "summary": report["summary"], "unclassified": report["unclassified"]})
        return frame
    for name, value in (("trace", trace), ("scenario", scenario)):
        if value is not None:
            raise InputError(f"{name}: applies to kind='trace'", name)
    names = _args.texts("only", only, one_allowed=True)
    network = _args.text("network", network)
    calibrated = _args.flag("calibrated", calibrated)
    jobs = _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS)
    cases = _args.optional_path("cases", cases)
    profiles = _args.optional_path("profiles", profiles)
    setups = _args.path("setups", setups)
    role = _args.text("role", role)
    if kind == "training":
        if calibrated:
            report = json.loads(_core.validate_training_calibrated(
                cases or "validation/training/cases.json", names, network, profiles,
                jobs or os.cpu_count() or 1))
            frame = pd.DataFrame(report["cases"])
            frame.attrs.update({"report": report, "summary": report["summary"], "gpus": report["gpus"]})
            return frame
        report = json.loads(_core.validate_training(cases or "validation/training/cases.json", names, network,
                                                    profiles,
                                                    jobs or os.cpu_count() or 1))
        frame = pd.DataFrame(report["cases"])
        frame.attrs.update({"report": report, "summary": report["summary"], "groups": report["groups"]})
        return frame
    if kind == "scaling":
        report = json.loads(_core.validate_scaling(cases or "validation/training/scaling.json", network))
        rows = [(study["id"], m["run"], m["gpus"], m["measured_mfu"], m["predicted_mfu"], m["error"])
                for study in report["studies"] for m in study["measured"]]
        frame = pd.DataFrame(rows, columns=["study", "run", "gpus", "measured_mfu", "predicted_mfu", "error"])
        frame.attrs.update({"report": report, "studies": {
            study["id"]: {key: study[key] for key in ("measured_ratio", "measured_ratio_low", "measured_ratio_high",
                                                      "predicted_ratio", "trend_reproduced")}
            for study in report["studies"]}})
        return frame
    if kind != "nccl":
        raise InputError(f"kind: {kind!r} is not a kind of validation (expected 'nccl', 'training', 'scaling' or 'trace')",
                         "kind")
    report = json.loads(_core.validate_nccl(setups, role, names, network, calibrated))
    rows, skipped = [], {}
    for s in report["setups"]:
        if "skipped" in s:
            skipped[s["id"]] = s["skipped"]
            continue
        for key, flag in (("rows", False), ("calibrated_rows", True)):
            for r in s.get(key, []):
                rows.append((s["id"], s["role"], s["group"], s["ranks"], s["op"], r["size_bytes"],
                             r["measured_busbw_GBps"], r["predicted_busbw_GBps"], r["error"], r["measured_time_us"],
                             r["predicted_time_us"], r["algo"], r["protocol"], flag))
    frame = pd.DataFrame(rows, columns=_NCCL_COLUMNS)
    frame.attrs.update({"report": report, "skipped": skipped, "groups": report["groups"]})
    return frame
