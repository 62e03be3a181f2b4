"""Questions about a build of a topology: its bill of materials, collectives and traffic."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import pandas as pd

from . import _core
from .context import EvalContext, default_context
from .errors import InputError
from .results import FabricResult, TrafficResult


def _changes(changes: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    return [(path, json.dumps(value)) for path, value in (changes or {}).items()]


# ctwin builds at most 2^24 GPUs (src/ctwin/core/limits.hpp); a larger int used to reach C++ and
# wrap through a 32-bit cast (gpus=2**32+64 ran 64 GPUs; issue 36).
MAX_GPUS = 1 << 24


def _gpus(gpus: Any, name: str = "gpus") -> int:
    """``gpus`` checked here, so that the error names the argument and no value is wrapped."""
    if isinstance(gpus, bool) or not isinstance(gpus, int) or not 1 <= gpus <= MAX_GPUS:
        raise InputError(f"{name}: expected a whole number of GPUs from 1 to {MAX_GPUS}, got {gpus!r}", file=name)
    return gpus


def _cluster(cluster: str | os.PathLike) -> str:
    text = os.fspath(cluster)
    # A bare name means a bundled topology: "dgx-h100-superpod".
    if "/" not in text and not text.endswith(".json"):
        return f"topologies/{text}.json"
    return text


def fabric(cluster: str | os.PathLike, gpus: int, changes: Mapping[str, Any] | None = None,
           calibration: str | os.PathLike | None = None, context: EvalContext | None = None) -> FabricResult:
    """The bill of materials and shape of the first ``gpus`` GPUs of a topology (``ctwin fabric``).

    ``cluster``: a topology file or a bundled name ("dgx-h100-superpod"). ``changes``: topology
    fields by dotted path, e.g. ``{"fabric.oversubscription.leaf": 2}``. ``calibration``: a file
    ``ctwin calibrate --nccl`` wrote. Returns a :class:`FabricResult`.
    """
    ctx = context or default_context()
    text = _core.fabric(_cluster(cluster), _gpus(gpus), _changes(changes), os.fspath(calibration or ""), ctx._core)
    return FabricResult(json.loads(text))


def collective(cluster: str | os.PathLike, gpus: int, op: str = "all_reduce", begin: str | int = "8",
               end: str | int = "8G", factor: float = 2, algorithm: str = "auto", protocol: str = "auto",
               dtype: str = "float", network: str = "flow", channels: int = 0,
               changes: Mapping[str, Any] | None = None, calibration: str | os.PathLike | None = None,
               context: EvalContext | None = None) -> pd.DataFrame:
    """What nccl-tests would print for ``op`` on the first ``gpus`` GPUs of a topology
    (``ctwin collective``): one row per size with time_us, algbw_GBps, busbw_GBps, algo and
    protocol. Sizes are nccl-tests' -b/-e/-f ("8", "1K", "64M", "8G"). The frame's ``attrs``
    hold op, gpus and channels; ``frame.attrs["report"]`` the whole JSON report.
    """
    ctx = context or default_context()
    text = _core.collective(_cluster(cluster), _gpus(gpus), _changes(changes), os.fspath(calibration or ""), op, algorithm,
                            protocol, str(begin), str(end), float(factor), dtype, network, channels, ctx._core)
    report = json.loads(text)
    frame = pd.DataFrame(report["rows"], columns=["size_bytes", "count", "time_us", "algbw_GBps", "busbw_GBps", "algo",
                                                  "protocol"])
    frame.attrs.update({"op": report["op"], "gpus": report["gpus"], "channels": report["channels"], "report": report})
    return frame


def traffic(cluster: str | os.PathLike, gpus: int, pattern: str = "alltoall", size: str | int = "16MiB",
            network: str = "flow", pxn: bool = False, steps: int = 8, flows_per_pair: int = 1,
            changes: Mapping[str, Any] | None = None, context: EvalContext | None = None) -> TrafficResult:
    """Plays a traffic pattern on a build (``ctwin traffic``): makespan, completions,
    aggregate throughput and the engine's work. Patterns: alltoall, incast, cross_rail,
    rail_ring, permutation, alltoall_chain. ``size``: per transfer, with its unit ("16MiB") or
    an int of bytes."""
    ctx = context or default_context()
    size_text = size if isinstance(size, str) else f"{int(size)}B"
    text = _core.traffic(_cluster(cluster), _gpus(gpus), _changes(changes), pattern, size_text, pxn, steps, flows_per_pair,
                         network, ctx._core)
    return TrafficResult(json.loads(text))
