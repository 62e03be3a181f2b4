"""Several jobs on one build, replayed together on one flow simulation (``ctwin cluster``)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import pandas as pd

from . import _args, _core
from .context import EvalContext, default_context
from .errors import InputError
from .results import _TextReport


class ClusterResult(_TextReport):
    """Jobs sharing one build (``ctwin cluster``).

    Fields: ``cluster``, ``build_nodes``, ``build_gpus``, ``busy_nodes``, ``steps`` (the window),
    ``window_end_s``, ``events`` and ``jobs``: per job its ``name``, ``scenario``, ``gpus``,
    ``placement``, ``nodes``, ``leaves``, ``start_s``, ``alone`` and ``shared`` (``step_time_s``,
    ``exposed_comm_s``, ``tokens_per_s``), ``slowdown``, ``shared_steps``, ``fabric_bytes`` and
    ``contended_links``. With background traffic (the file's ``background``) each job also has
    ``alone_with_background`` and ``background_slowdown``, and ``background`` lists every directed stream
    with its ``rate_Gbps``, ``achieved_Gbps`` and ``less_than_asked``. :meth:`to_dict` equals
    ``ctwin cluster --format json``; :meth:`to_json` is its text.
    """

    __slots__ = ()

    @property
    def jobs(self) -> pd.DataFrame:
        """One row per job: name, GPUs, placement, leaves, start, step alone and shared, slowdown, exposed communication."""
        rows = [{"job": j["name"], "gpus": j["gpus"], "placement": j["placement"], "leaves": j["leaves"],
                 "start_s": j["start_s"], "alone_step_s": j["alone"]["step_time_s"],
                 "shared_step_s": j["shared"]["step_time_s"], "slowdown": j["slowdown"],
                 "alone_exposed_comm_s": j["alone"]["exposed_comm_s"],
                 "shared_exposed_comm_s": j["shared"]["exposed_comm_s"]} for j in self._report["jobs"]]
        return pd.DataFrame(rows)


class ClusterPolicies(_TextReport):
    """The scheduler what-if (``ctwin cluster --compare-policies``): per node policy the jobs that did not fit,
    the placed GPUs, ``allocated_share`` and ``utilisation`` of the free GPUs, and each placed job as in
    :class:`ClusterResult`. :meth:`to_dict` equals the command's ``--format json``.
    """

    __slots__ = ()

    @property
    def summary(self) -> pd.DataFrame:
        """One row per policy: placed jobs, jobs that did not fit, placed GPUs, allocated share, utilisation."""
        return pd.DataFrame([{"policy": p["policy"], "placed_jobs": len(p["jobs"]), "unplaced": ",".join(p["unplaced"]),
                              "placed_gpus": p["placed_gpus"], "allocated_share": p["allocated_share"],
                              "utilisation": p["utilisation"]} for p in self._report["policies"]])


def cluster(jobs: str | os.PathLike | dict[str, Any], steps: int | None = None, compare_policies: bool = False,
            context: EvalContext | None = None) -> ClusterResult | ClusterPolicies:
    """Replays the jobs of a JOBS file (docs/input-formats.md) together on one flow simulation of
    its build, as ``ctwin cluster``: each job alone, then all of them together.

    ``jobs``: a JOBS file (tried under the data directory too) or its content as a dict (paths in it
    relative to the working directory, then the data directory). ``steps``: the window, as ``--steps``
    (default: the file's). ``compare_policies``: the scheduler what-if, as ``--compare-policies``: every job
    the file places by policy placed by each node policy in turn. Returns a :class:`ClusterResult`, or a
    :class:`ClusterPolicies` with ``compare_policies``. Raises :class:`ctwin.InputError` on bad input.
    """
    window = 0 if steps is None else _args.integer("steps", steps, 1, 100)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    compare = _args.flag("compare_policies", compare_policies)
    wrap = ClusterPolicies if compare else ClusterResult
    options = _args.options(_core.ClusterOptions, steps=window, compare_policies=compare)
    if isinstance(jobs, Mapping):
        try:
            text = json.dumps(jobs, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise InputError(f"jobs: not a JSON document: {error}", file="jobs") from None
        return wrap(_core.cluster_document(text, "<jobs>", options, ctx._core))
    return wrap(_core.cluster_file(_args.path("jobs", jobs), options, ctx._core))
