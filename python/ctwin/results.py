"""Result objects: attributes for the headline figures, ``to_dict()`` for the whole report (the
same JSON as the ``ctwin`` command's ``--format json``), and pandas DataFrames for tables."""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd


class _Report:
    """A JSON report with read-only attribute access to its top-level fields."""

    __slots__ = ("_report",)

    def __init__(self, report: dict):
        self._report = report

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


class StepResult(_Report):
    """One predicted training step (``ctwin run``).

    Fields: ``step_time_s``, ``tokens_per_s``, ``model_tflops_per_gpu``,
    ``hardware_tflops_per_gpu``, ``mfu`` (0-1), ``comm_ratio`` (exposed communication / step),
    ``fits_memory``, ``parallel`` (the split), ``model``, ``cluster``, ``gpu``, ``gpus``,
    ``network`` and the rest of :meth:`to_dict`.
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
        parts += [(f"exposed {kind}", seconds) for kind, seconds in b["exposed_comm_s"].items()]
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
