"""Training steps and scaling studies."""

from __future__ import annotations

import json
import os
from typing import Mapping, Sequence

from . import _args, _core
from .build import ROUTINGS
from .context import EvalContext, default_context
from .errors import InputError
from .results import ScalingResult, StepResult
from .scenario import Scenario, as_scenario


def _calibrated(s: Scenario, calibration: str | os.PathLike | None) -> Scenario:
    return s if calibration is None else Scenario(s._core.with_calibration(_args.path("calibration", calibration)))


_PLACEMENTS = ("domain_aligned", "contiguous", "packed", "spread", "topology_aware", "fragmented")


def _placed(s: Scenario, placement: str | Mapping | None) -> Scenario:
    """The scenario with its "placement" replaced, as --placement does (docs/cluster.md)."""
    if placement is None:
        return s
    if not isinstance(placement, (str, Mapping)) or (isinstance(placement, str) and placement not in _PLACEMENTS):
        raise _args.refuse("placement", "a placement name (" + ", ".join(_PLACEMENTS) +
                           ") or the scenario's placement object", placement)
    return s.with_(placement=dict(placement) if isinstance(placement, Mapping) else placement)


def run(scenario: Scenario | str | os.PathLike, network: str | None = None, trace: bool | str | os.PathLike | None = None,
        comm: str = "auto", all_ranks: bool = False, context: EvalContext | None = None,
        calibration: str | os.PathLike | None = None, degrade: Sequence[str] | None = None,
        flow_sample: str = "full", placement: str | Mapping | None = None, routing: str | None = None) -> StepResult:
    """Predicts one training step of ``scenario`` (a :class:`Scenario` or a scenario file).

    ``network``: "analytical" or "flow" (default: the scenario's). ``trace``: True keeps the
    step's Chrome/Perfetto trace on the result (``result.trace``, ``result.timeline()``); a path
    also writes it there. ``comm``: "auto", "isolated" or "shared" (every op's traffic on one
    flow simulation of the cluster; auto: shared with the flow network). ``all_ranks``: simulate
    every rank instead of one per pipeline stage (slow). ``context``: caches shared with other
    calls (default: one per process). ``calibration``: a calibration file (``ctwin calibrate
    --bundle``, or ``--nccl -o``) whose GPU profile and cluster fit replace the scenario's, as
    ``ctwin run --calibration``. ``degrade``: degraded parts as ``ctwin run --degrade`` reads
    them: ``"gpu:RANK=SPEED"``, ``"hbm:RANK=SHARE"`` (HBM bandwidth), and on the shared flow
    fabric ``"nic:RANK=SHARE"``, ``"link:NAME=SHARE"``, ``"leaf:ID=uplinks:SHARE"`` (refused
    when the step's communication is isolated). ``flow_sample``: "full" (every DP replica's
    traffic on the shared flow fabric, exact), or the approximations "su" (one scalable unit of
    each pipeline stage) and "replica" (one DP replica of each stage), as ``ctwin run
    --flow-sample``; refused when the step's communication does not run on the shared fabric.
    ``placement``: where the job sits, as ``ctwin run --placement``: a name ("packed", "spread",
    "topology_aware", "fragmented", "domain_aligned", "contiguous") or the scenario's placement
    object, e.g. ``{"policy": "fragmented", "build_nodes": 64, "fragmentation": 0.4, "seed": 7}``
    (docs/cluster.md). ``routing``: "ecmp" or "adaptive" for the cluster's ``fabric.routing``
    (as ``ctwin run --routing``; default: the topology's).

    Returns a :class:`StepResult` whose ``to_dict()`` equals ``ctwin run --format json``.
    Raises :class:`ctwin.InputError` on bad input. The GIL is released while ctwin works, and
    Ctrl-C interrupts it.
    """
    if network is not None:
        _args.text("network", network)
    comm = _args.text("comm", comm)
    all_ranks = _args.flag("all_ranks", all_ranks)
    if trace is not None and not isinstance(trace, bool):
        trace = _args.path("trace", trace)
    degrade = _args.texts("degrade", degrade)
    flow_sample = _args.text("flow_sample", flow_sample)
    if routing is not None:
        routing = _args.text("routing", routing, ROUTINGS)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    s = _placed(_calibrated(as_scenario(scenario), calibration), placement)
    if network is not None:
        s = s.with_(network=network)
    if routing is not None:
        s = s.with_({"cluster.fabric.routing": routing})
    options = _args.options(_core.StepOptions, comm=comm, all_ranks=all_ranks, degrade=degrade, flow_sample=flow_sample)
    report, trace_text = _core.run(s._core, options, ctx._core, bool(trace))
    trace_dict = json.loads(trace_text) if trace else None
    if trace and not isinstance(trace, bool):
        with open(trace, "w") as out:
            out.write(trace_text + "\n")
    return StepResult(report, trace_dict)


def scale(scenario: Scenario | str | os.PathLike, gpus: Sequence[int], weak: bool = False, network: str | None = None,
          jobs: int | None = None, context: EvalContext | None = None, batch: str | None = None,
          calibration: str | os.PathLike | None = None, placement: str | Mapping | None = None) -> ScalingResult:
    """Throughput and linearity of ``scenario`` at each GPU count in ``gpus`` (ascending).

    ``batch`` chooses each size's global batch: ``"nearest"`` (the default: the scenario's,
    rounded to the nearest multiple of micro-batch x dp, so every size answers),
    ``"fixed"`` (the scenario's; a size it does not divide is invalid) or ``"per-replica"``
    (each DP replica keeps its share: weak scaling, also ``weak=True``). Each point says the
    batch it used, and ``batch_note`` how it was derived. A size the split cannot use becomes
    a point with ``invalid`` set. ``jobs``: sizes simulated at
    once (default: one per core; results do not depend on it). ``calibration``: as in
    :func:`run`. ``placement``: as in :func:`run`, at every size. Returns a
    :class:`ScalingResult` whose ``to_dict()`` equals ``ctwin scale --format json``.
    """
    weak = _args.flag("weak", weak)
    if network is not None:
        _args.text("network", network)
    # Any iterable of counts (a list, a range, a numpy array), not a string or a mapping.
    if isinstance(gpus, (str, bytes, Mapping)) or not hasattr(gpus, "__iter__"):
        raise _args.refuse("gpus", "a list of GPU counts", gpus)
    sizes = [_args.integer(f"gpus[{i}]", g, 1, _args.MAX_GPUS) for i, g in enumerate(gpus)]
    jobs = _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS)
    if batch is not None:
        _args.text("batch", batch, ("nearest", "fixed", "per-replica"))
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    s = _placed(_calibrated(as_scenario(scenario), calibration), placement)
    if network is not None:
        s = s.with_(network=network)
    if weak and batch not in (None, "per-replica"):
        raise InputError(f"batch: weak=True grows the batch per replica; it cannot be combined with batch={batch!r}",
                         file="batch")
    policy = "per-replica" if weak else (batch or "nearest")
    options = _args.options(_core.ScaleOptions, gpus=sizes, batch=policy, jobs=jobs or os.cpu_count() or 1)
    return ScalingResult(_core.scale(s._core, options, ctx._core))
