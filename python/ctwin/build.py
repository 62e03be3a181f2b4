"""Questions about a build of a topology: its bill of materials, collectives and traffic."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Sequence

import pandas as pd

from . import _args, _core
from .context import EvalContext, default_context
from .errors import InputError
from .results import FabricResult, TrafficResult


def _changes(changes: Mapping[str, Any] | None, name: str = "changes") -> list[tuple[str, str]]:
    out = []
    for path, value in _args.mapping(name, changes).items():
        try:
            out.append((path, json.dumps(value, allow_nan=False)))
        except (TypeError, ValueError) as error:
            raise InputError(f"{name}: {path}: not a JSON value: {error}", file=name) from None
    return out


MAX_GPUS = _args.MAX_GPUS


def _gpus(gpus: Any, name: str = "gpus") -> int:
    """``gpus`` checked here, so that the error names the argument and no value is wrapped (a
    larger int used to wrap through a 32-bit cast: gpus=2**32+64 ran 64 GPUs; issue 36)."""
    return _args.integer(name, gpus, 1, MAX_GPUS)


def _cluster(cluster: str | os.PathLike) -> str | bytes:
    # A bare name ("dgx-h100-superpod") is a bundled topology; the library resolves it.
    return _args.path("cluster", cluster)


ROUTINGS = ["ecmp", "adaptive"]


def _routed(changes: Mapping[str, Any] | None, routing: str | None, prefix: str = "fabric.") -> Mapping[str, Any] | None:
    """``changes`` with ``routing`` ("ecmp" or "adaptive", as ``--routing``) set as the topology's
    ``fabric.routing``; as given when ``routing`` is None."""
    if routing is None:
        return changes
    return {**_args.mapping("changes", changes), prefix + "routing": _args.text("routing", routing, ROUTINGS)}


def _context(context: Any) -> EvalContext:
    return _args.instance("context", context, EvalContext, "an EvalContext") or default_context()


def fabric(cluster: str | os.PathLike, gpus: int, changes: Mapping[str, Any] | None = None,
           calibration: str | os.PathLike | None = None, context: EvalContext | None = None) -> FabricResult:
    """The bill of materials and shape of the first ``gpus`` GPUs of a topology (``ctwin fabric``).

    ``cluster``: a topology file or a bundled name ("dgx-h100-superpod"). ``changes``: topology
    fields by dotted path, e.g. ``{"fabric.oversubscription.leaf": 2}``. ``calibration``: a file
    ``ctwin calibrate --nccl`` wrote. Returns a :class:`FabricResult`.
    """
    text = _core.fabric(_cluster(cluster), _gpus(gpus), _changes(changes), _args.optional_path("calibration", calibration),
                        _context(context)._core)
    return FabricResult(json.loads(text))


def collective(cluster: str | os.PathLike, gpus: int, op: str = "all_reduce", begin: str | int = "8",
               end: str | int = "8G", factor: float = 2, algorithm: str = "auto", protocol: str = "auto",
               dtype: str = "float", network: str = "flow", channels: int = 0,
               changes: Mapping[str, Any] | None = None, calibration: str | os.PathLike | None = None,
               context: EvalContext | None = None, every_transfer: bool = False,
               degrade: Sequence[str] | None = None, routing: str | None = None) -> pd.DataFrame:
    """What nccl-tests would print for ``op`` on the first ``gpus`` GPUs of a topology
    (``ctwin collective``): one row per size with time_us, algbw_GBps, busbw_GBps, algo and
    protocol. Sizes are nccl-tests' -b/-e/-f ("8", "1K", "64M", "8G"). The frame's ``attrs``
    hold op, gpus and channels; ``frame.attrs["report"]`` the whole JSON report.
    ``every_transfer``: simulate every step's transfers instead of one step per phase (slow; for
    checking, as ``--every-transfer``). ``degrade``: parts at a share of their rate, as ``ctwin
    collective --degrade`` reads them ("nic:RANK=0.25", "link:leaf3.up5=0.5", "leaf:3=uplinks:0.5").
    ``routing``: "ecmp" or "adaptive" for the topology's ``fabric.routing`` (as ``--routing``;
    default: the file's).
    """
    changes = _routed(changes, routing)
    sizes = []
    for name, value in (("begin", begin), ("end", end)):
        sizes.append(str(_args.integer(name, value, 0, 1 << 40)) if not isinstance(value, str) else _args.text(name, value))
    options = _args.options(
        _core.CollectiveOptions, cluster=_cluster(cluster), gpus=_gpus(gpus), changes=_changes(changes),
        calibration=_args.optional_path("calibration", calibration), op=_args.text("op", op),
        algorithm=_args.text("algorithm", algorithm), protocol=_args.text("protocol", protocol), begin=sizes[0],
        end=sizes[1], factor=_args.real("factor", factor, 1.0, 1e6), dtype=_args.text("dtype", dtype),
        network=_args.text("network", network), channels=_args.integer("channels", channels, 0, 64),
        every_transfer=_args.flag("every_transfer", every_transfer), degrade=_args.texts("degrade", degrade))
    text = _core.collective(options, _context(context)._core)
    report = text.to_dict()
    frame = pd.DataFrame(report["rows"], columns=["size_bytes", "count", "time_us", "algbw_GBps", "busbw_GBps", "algo",
                                                  "protocol"])
    frame.attrs.update({"op": report["op"], "gpus": report["gpus"], "channels": report["channels"], "report": report})
    return frame


def traffic(cluster: str | os.PathLike, gpus: int, pattern: str = "alltoall", size: str | int = "16MiB",
            network: str = "flow", pxn: bool = False, steps: int = 8, flows_per_pair: int = 1,
            changes: Mapping[str, Any] | None = None, context: EvalContext | None = None,
            full_solve: bool = False, calibration: str | os.PathLike | None = None) -> TrafficResult:
    """Plays a traffic pattern on a build (``ctwin traffic``): makespan, completions,
    aggregate throughput and the engine's work. Patterns: alltoall, incast, cross_rail,
    rail_ring, permutation, alltoall_chain. ``size``: per transfer, with its unit ("16MiB") or
    an int of bytes. ``full_solve``: with the flow network, re-solve every flow at every change
    (slow; checks the incremental solver, as ``--full-solve``). ``calibration``: a file ``ctwin
    calibrate --nccl`` wrote, whose link efficiencies the build takes (``--calibration``)."""
    size_text = _args.text("size", size) if isinstance(size, str) else f"{_args.integer('size', size, 0, 1 << 40)}B"
    text = _core.traffic(_cluster(cluster), _gpus(gpus), _changes(changes), _args.text("pattern", pattern), size_text,
                         _args.flag("pxn", pxn), _args.integer("steps", steps, 1, _args.INT32_MAX),
                         _args.integer("flows_per_pair", flows_per_pair, 1, _args.INT32_MAX),
                         _args.text("network", network), _args.flag("full_solve", full_solve),
                         _args.optional_path("calibration", calibration), _context(context)._core)
    return TrafficResult(json.loads(text))
