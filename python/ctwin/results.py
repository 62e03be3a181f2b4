"""Result objects: attributes for the headline figures, ``to_dict()`` for the whole report (the
same JSON as the ``ctwin`` command's ``--format json``), and pandas DataFrames for tables."""

from __future__ import annotations

import copy
import json
from typing import Any

import pandas as pd

from . import _core


class _Report:
    """A JSON report with read-only attribute access to its top-level fields.

    Built from the native object ``ctwin._core`` returns (a ``_core.Report``: the library's report
    document, with read-only properties for its headline figures), which :attr:`native` keeps,
    or from a dict.
    """

    __slots__ = ("_report", "_native")

    def __init__(self, report: dict | _core.Report):
        self._native = report if isinstance(report, _core.Report) else None
        self._report = report.to_dict() if self._native is not None else report

    @property
    def native(self) -> _core.Report | None:
        """The ``ctwin._core`` result object behind this one (its class is the command's, e.g.
        ``_core.StepReport``); None for a result built from a dict."""
        return self._native

    def to_dict(self) -> dict:
        """The whole report, as ``ctwin <command> --format json`` prints it."""
        return copy.deepcopy(self._report)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._report[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._report))


class _TextReport(_Report):
    """A report that keeps the library's JSON text, so that :meth:`to_json` is the command's bytes."""

    __slots__ = ("_text",)

    def __init__(self, report: str | _core.Report):
        super().__init__(json.loads(report) if isinstance(report, str) else report)
        self._text = report if isinstance(report, str) else None

    def to_json(self) -> str:
        """The report's text, byte for byte what the command prints with ``--format json`` (without its newline)."""
        return self._text if self._text is not None else self._native.to_json()


class StepResult(_Report):
    """One predicted training step (``ctwin run``).

    Fields: ``step_time_s``, ``tokens_per_s``, ``model_tflops_per_gpu``,
    ``hardware_tflops_per_gpu``, ``mfu`` (0-1), ``comm_ratio`` (exposed communication / step),
    ``fits_memory``, ``parallel`` (the split), ``model``, ``cluster``, ``gpu``, ``gpus``,
    ``network``, ``error_band`` (the p10-p90 of what would be measured for the step time,
    tokens/s, model TFLOP/s and MFU, and the class of held-out runs it comes from) and the rest
    of :meth:`to_dict`.
    """

    __slots__ = ("trace",)

    def __init__(self, report: dict, trace: dict | None = None):
        super().__init__(report)
        #: The step's Chrome/Perfetto trace as a dict, when asked for with ``trace=``.
        self.trace = trace

    @property
    def breakdown(self) -> pd.DataFrame:
        """Where the step's time went (mean over pipeline ranks): part, seconds, share of the step."""
        b = self._report["breakdown"]
        parts = [("compute", b["compute_s"])]
        # The CLI's order: the parallelisms from the innermost out.
        parts += [(f"exposed {kind}", b["exposed_comm_s"][kind]) for kind in ("tp", "pp", "dp", "cp", "ep")]
        parts += [("bubble", b["bubble_s"]), ("optimizer", b["optimizer_s"])]
        frame = pd.DataFrame(parts, columns=["part", "seconds"])
        frame["share"] = frame["seconds"] / self._report["step_time_s"]
        return frame

    @property
    def memory(self) -> pd.DataFrame:
        """Memory per GPU of the pipeline stage that needs most, in GiB, by part."""
        m = self._report["memory_gib_per_gpu"]
        return pd.DataFrame([(part, gib) for part, gib in m.items() if part != "total"], columns=["part", "gib"])

    def timeline(self) -> pd.DataFrame:
        """The trace's busy intervals: rank, stream, name, start_ms, duration_ms, micro_batch,
        pass and chunk (-1 / "" where an interval belongs to no micro-batch). Needs ``trace=True``."""
        if self.trace is None:
            raise ValueError("this step was run without trace=True; its timeline was not kept")
        names: dict[tuple[int, int], str] = {}
        rows = []
        for e in self.trace["traceEvents"]:
            if e["ph"] == "M" and e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
            elif e["ph"] == "X":
                args = e.get("args", {})
                rows.append((e["pid"], e["tid"], e["name"], e["ts"] / 1e3, e["dur"] / 1e3, args.get("micro_batch", -1),
                             args.get("pass", ""), args.get("chunk", -1)))
        frame = pd.DataFrame(rows, columns=["rank", "tid", "name", "start_ms", "duration_ms", "micro_batch", "pass", "chunk"])
        frame.insert(1, "stream", [names.get((r, t), str(t)) for r, t in zip(frame["rank"], frame["tid"])])
        return frame.drop(columns="tid")


class ScalingResult(_Report):
    """A scaling study (``ctwin scale``): ``model``, ``scaling`` ("strong" or "weak") and
    :attr:`points`, one row per size with its throughput and linearity."""

    @property
    def points(self) -> pd.DataFrame:
        return pd.DataFrame(self._report["points"])


class FabricResult(_Report):
    """A build's bill of materials and shape (``ctwin fabric``): ``nodes``, ``tiers``,
    ``bisection_GBps``, ``fabric_cables``, ``transceivers``, ... and the tables
    :attr:`switches`, :attr:`cables` and :attr:`hops`."""

    @property
    def switches(self) -> pd.DataFrame:
        return pd.DataFrame(self._report["switches"])

    @property
    def cables(self) -> pd.DataFrame:
        return pd.DataFrame(self._report["cables"])

    @property
    def hops(self) -> pd.DataFrame:
        return pd.DataFrame(self._report["hops"])


class TrafficResult(_Report):
    """A traffic pattern played on a build (``ctwin traffic``): ``makespan_us``,
    ``completion_us`` (min, median, max), ``aggregate_GBps``, ``events``, ..."""


def _error_rows(report: dict | None) -> pd.DataFrame:
    """A GEMM error report as rows: dtype ("all" for the whole set), shapes ("all" or
    "MNK>=2^30"), count and the median, mean and max |predicted / measured - 1| (fractions)."""
    columns = ["dtype", "shapes", "count", "median_abs_error", "mean_abs_error", "max_abs_error"]
    if report is None:
        return pd.DataFrame(columns=columns)

    def row(dtype: str, shapes: str, s: dict) -> tuple:
        return (dtype, shapes, s["shapes"], s["median_abs_error"], s["mean_abs_error"], s["max_abs_error"])

    rows = [row(d, "all", s) for d, s in report.get("per_dtype", {}).items()]
    rows += [row(d, "MNK>=2^30", s) for d, s in report.get("large_per_dtype", {}).items()]
    rows.append(row("all", "all", report["overall"]))
    return pd.DataFrame(rows, columns=columns)


def _nccl_cases(report: dict, key: str) -> pd.DataFrame:
    """Per-log median and max |busbw error| before (defaults) and after calibration."""
    rows = [(c["log"], c["before"]["rows"], c["before"]["median_abs_error"], c["after"]["median_abs_error"],
             c["before"]["max_abs_error"], c["after"]["max_abs_error"]) for c in report["fit"].get(key, [])]
    return pd.DataFrame(rows, columns=["log", "rows", "median_abs_error_before", "median_abs_error_after",
                                       "max_abs_error_before", "max_abs_error_after"])


class CalibrationResult(_Report):
    """A fit of the twin to measurements (``ctwin calibrate``); ``to_dict()`` equals the
    command's ``--format json``. :attr:`output` is the file written.

    GEMM fits (:func:`ctwin.calibrate_gemm`): :attr:`fit` and :attr:`holdout` are the error
    tables (per dtype, large shapes, overall; fractions). Layer fits (:func:`ctwin.calibrate_layers`):
    :attr:`fit` and :attr:`holdout` list every measured row (model, seq_len, micro_batch, tp, phase,
    measured_ms and predicted_ms forward + backward, error after the fit). Training fits
    (:func:`ctwin.calibrate_training`): :attr:`fit`, :attr:`holdout` and :attr:`moe` list every run
    (measured, predicted and error at the base scale and at the fitted one). Trace fits
    (:func:`ctwin.calibrate_trace`): :attr:`fit` is the trace against the twin per kernel class and
    phase on the base profile; there is no held-out set. NCCL fits (:func:`ctwin.calibrate_nccl`):
    :attr:`fit` and :attr:`holdout` are per-log tables of the median/max |busbw error| before
    and after, :attr:`parameters` the fitted scales (with why one is not identified),
    :attr:`path_factors` one effective factor per path the logs exercise, and :attr:`rows` every size of every log:
    measured busbw against the prediction with the defaults and with the calibration (GB/s).
    """

    __slots__ = ("_kind", "_output", "_rows")

    def __init__(self, report: dict, kind: str, output: str, rows: list | None = None):
        super().__init__(report)
        self._kind = kind
        self._output = output
        self._rows = rows

    @property
    def output(self) -> str:
        """The file the calibration was written to (a GPU profile or a calibration file)."""
        return self._output

    @property
    def fit(self) -> pd.DataFrame:
        """Error on the data the fit saw."""
        if self._kind == "gemm":
            return _error_rows(self._report["fit"])
        if self._kind == "layers":
            return self._layer_rows("fit")
        if self._kind == "training":
            return self._training_rows("fit")
        if self._kind == "trace":
            return pd.DataFrame(self._report["comparison"]["rows"],
                                columns=["class", "phase", "unit", "measured_us", "predicted_us", "error"])
        return _nccl_cases(self._report, "logs")

    @property
    def holdout(self) -> pd.DataFrame:
        """Error on the held-out data (empty when none was given)."""
        if self._kind == "gemm":
            return _error_rows(self._report.get("holdout"))
        if self._kind == "layers":
            return self._layer_rows("holdout")
        if self._kind == "training":
            return self._training_rows("holdout")
        if self._kind == "trace":
            return pd.DataFrame()
        return _nccl_cases(self._report, "holdout_logs")

    @property
    def moe(self) -> pd.DataFrame:
        """Training fits: the mixture-of-experts runs, judged at the fitted scale, never fitted on."""
        return self._training_rows("moe")

    def _training_rows(self, name: str) -> pd.DataFrame:
        frame = pd.DataFrame(self._rows, columns=["set", "id", "metric", "measured", "predicted_base", "error_base",
                                                  "predicted_fitted", "error_fitted"])
        return frame[frame["set"] == name].drop(columns="set").reset_index(drop=True)

    def _layer_rows(self, name: str) -> pd.DataFrame:
        frame = pd.DataFrame(self._rows, columns=["set", "model", "seq_len", "micro_batch", "tp", "phase", "measured_ms",
                                                  "predicted_ms", "error"])
        return frame[frame["set"] == name].drop(columns="set").reset_index(drop=True)

    @property
    def parameters(self) -> pd.DataFrame:
        """NCCL fits: each parameter's default and fitted value, whether the logs identify it and,
        when not, why (``reason``)."""
        return pd.DataFrame(self._report.get("fit", {}).get("parameters", []))

    @property
    def path_factors(self) -> pd.DataFrame:
        """NCCL fits: one effective factor per path the logs exercise (intra-node, inter-node): the
        links it scales together, the scale and whether the logs identify it."""
        return pd.DataFrame(self._report.get("fit", {}).get("path_factors", []),
                            columns=["path", "links", "scale", "identified"])

    @property
    def rows(self) -> pd.DataFrame:
        """NCCL fits: log, held_out, size_bytes, measured_busbw_GBps, default_busbw_GBps,
        calibrated_busbw_GBps, default_error and calibrated_error (predicted / measured - 1)."""
        if self._kind != "nccl":
            raise ValueError("per-size rows exist for NCCL calibrations only; see fit and holdout")
        return pd.DataFrame(self._rows, columns=["log", "held_out", "size_bytes", "measured_busbw_GBps",
                                                 "default_busbw_GBps", "calibrated_busbw_GBps", "default_error",
                                                 "calibrated_error"])


class LayerResult(_Report):
    """One transformer layer on a GPU (``ctwin layer``): ``model``, ``gpu``, ``forward_ms``,
    ``backward_ms`` (milliseconds) and :attr:`kernels`; or, with ``measured=``, the twin against
    measured layer times: ``measured``, ``measured_gpu``, ``gpu_profile`` and :attr:`rows`."""

    @property
    def kernels(self) -> pd.DataFrame:
        """Each kernel's name, forward_us and backward_us (microseconds; recompute included)."""
        return pd.DataFrame(self._report.get("kernels", []), columns=["name", "forward_us", "backward_us"])

    @property
    def rows(self) -> pd.DataFrame:
        """With ``measured=``: per measured row, measured and predicted forward/backward ms and
        the errors (predicted / measured - 1)."""
        return pd.DataFrame(self._report.get("rows", []))
