"""The split planner and grid sweeps (``ctwin plan``, ``ctwin sweep``), locally or on Dask.

Without ``client`` a plan or sweep runs in this process. With a ``dask.distributed.Client``
it is cut into one shard per worker (the library's ``--shard i/N`` slices), the shards run on
the workers, and the library's merge (``--merge``) joins them: the result is the one a local
run gives, byte for byte, because merging is exact (see docs/plan.md, "Shards").
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Callable, Mapping, Sequence

import pandas as pd

from . import _args, _core
from .build import _gpus
from .context import EvalContext, default_context
from .errors import InputError
from .results import _TextReport
from .scenario import Scenario, as_scenario
from .step import _placed

_BREAKDOWN = ("compute", "recompute", "bubble", "exposed_tp", "exposed_pp", "exposed_dp", "exposed_cp", "exposed_ep",
              "optimizer")


class PlanResult(_TextReport):
    """A plan (``ctwin plan``): ``model``, ``cluster``, ``gpu``, ``gpus``, ``global_batch``,
    ``seq_len``, ``objective``, ``enumerated`` (candidates), ``survivors`` (valid and fitting),
    ``rules`` (what each rule removed), ``search`` (``bounded``: candidates ranked by a lower
    bound on their step time, ``replayed``: those replayed, ``exhaustive``) and ``results`` (the
    best ``top``, best first: the same whether the rest were replayed or ruled out by their
    bound).

    :attr:`table` has one row per result; :meth:`to_json` is the text ``ctwin plan --format
    json`` prints.
    """

    __slots__ = ()

    @property
    def table(self) -> pd.DataFrame:
        """One row per result, best first: rank, the split (tp, pp, vpp, cp, ep, dp, schedule,
        micro_batch, micro_batches, recompute, zero, distributed_optimizer), network ("flow"
        when re-ranked on the shared flow fabric, else "analytical") and that network's
        step_time_s, tokens_per_s, mfu, memory_gib_per_gpu and breakdown in seconds per step
        (compute, recompute, bubble, exposed_tp/pp/dp/cp/ep, optimizer); analytical_rank and
        the analytical step_time_s and tokens_per_s beside it; tokens_per_s_p10 and _p90 (the
        band of what would be measured, docs/validation.md#error-bands-issue-41-item-5) and
        distinguishable_from_best (whether that band misses rank 1's; None on rank 1); ``why`` (the parts that differ
        most from rank 1); ``warnings`` (the checks of the build's warnings, joined by ";",
        the same on every row; empty when none: see :attr:`warnings`)."""
        rows = []
        checks = ";".join(w["check"] for w in self.warnings)
        for r in self._report["results"]:
            split = r["split"]
            row: dict[str, Any] = {"rank": r["rank"]}
            row.update({k: split[k] for k in ("tp", "pp", "vpp", "cp", "ep", "dp", "schedule", "micro_batch",
                                              "micro_batches", "recompute", "zero", "distributed_optimizer")})
            score = r["flow"] if r.get("flow") else r["analytical"]
            row["network"] = "flow" if r.get("flow") else "analytical"
            for key in ("step_time_s", "tokens_per_s", "mfu", "model_tflops_per_gpu", "memory_gib_per_gpu"):
                row[key] = score[key]
            band = score["error_band"]["tokens_per_s"]
            row["tokens_per_s_p10"], row["tokens_per_s_p90"] = band["p10"], band["p90"]
            row["distinguishable_from_best"] = r.get("distinguishable_from_best")
            for part in _BREAKDOWN:
                row[f"{part}_s"] = score["breakdown_s"][part]
            row["analytical_rank"] = r["analytical_rank"]
            row["analytical_step_time_s"] = r["analytical"]["step_time_s"]
            row["analytical_tokens_per_s"] = r["analytical"]["tokens_per_s"]
            row["why"] = ", ".join(f"{d['delta_s']:+.3f} s {d['part']}" for d in r["why"])
            row["warnings"] = checks
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def warnings(self) -> list[dict[str, str]]:
        """The build's warnings (``check``, ``message``, ``fix``), as ``ctwin run`` prints them:
        every candidate runs on the same build, so they hold for every row of :attr:`table`
        (its ``warnings`` column names their checks). Empty for a sound build."""
        return self._report.get("warnings", [])

    @property
    def calibrated(self) -> dict[str, Any]:
        """How sure the figures are: ``compute`` (the GPU profile's training-time scale fitted on
        measurements), ``network`` (the scenario's collectives calibrated) and ``note`` (empty
        when both are; otherwise why the step times, tokens/s and MFU are optimistic). The
        same object as the JSON's ``calibrated``."""
        return self._report["calibrated"]

    @property
    def rule_counts(self) -> pd.DataFrame:
        """One row per rule: rule, description, removed (candidates), example (the first message)."""
        return pd.DataFrame(self._report["rules"], columns=["rule", "description", "removed", "example"])


class SweepResult(_TextReport):
    """A sweep (``ctwin sweep``): ``model``, ``axes`` and ``points`` in grid order (the first
    axis varies slowest). :attr:`table` has one row per point; :meth:`to_json` is the text
    ``ctwin sweep --format json`` prints."""

    __slots__ = ()

    @property
    def table(self) -> pd.DataFrame:
        """One row per point: the axes' fields (values as given), dp, micro_batches,
        step_time_s, tokens_per_s, model_tflops_per_gpu, mfu, comm_ratio, exposed_comm_s,
        bubble_s, memory_gib_per_gpu, fits_memory, ``invalid`` (why a combination could not
        run; NaN elsewhere) and ``warnings`` (the checks of the point's build and split warnings,
        as ``ctwin run`` prints them, joined by ";"; empty when none: the whole warnings are in
        :meth:`to_json`)."""
        fields = [a["field"] for a in self._report["axes"]]
        columns = fields + ["dp", "micro_batches", "step_time_s", "tokens_per_s", "model_tflops_per_gpu", "mfu",
                            "comm_ratio", "exposed_comm_s", "bubble_s", "memory_gib_per_gpu", "fits_memory", "invalid"]
        frame = pd.DataFrame(self._report["points"], columns=columns)
        frame["warnings"] = [";".join(w["check"] for w in p.get("warnings", [])) for p in self._report["points"]]
        return frame


# ---- scenarios and options as workers receive them ----

def _scenario(scenario: Scenario | str | os.PathLike) -> Scenario:
    return as_scenario(scenario)


def _portable(s: Scenario) -> tuple[str, str, list[tuple[str, str]]]:
    """What a worker needs to rebuild ``s``: its source, document and changes (plain strings,
    so they pickle)."""
    return s.source, s._core.document_json(), list(s._core.changes())


def _rebuild(portable: tuple[str, str, list[tuple[str, str]]]) -> _core.Scenario:
    source, document, changes = portable
    core = None
    # Loaded from its file when the worker sees the same file, so that paths inside it resolve
    # against its directory; otherwise from the text (paths then resolve against the working
    # directory and ctwin's data directory).
    if os.path.isfile(source):
        loaded = _core.Scenario.load(source)
        if json.loads(loaded.document_json()) == json.loads(document):
            core = loaded
    if core is None:
        core = _core.Scenario.from_json_text(document, source)
    for path, value in changes:
        core = core.with_(path, value)
    return core


def _value_text(name: str, value: Any) -> str:
    if isinstance(value, str):
        return _args.text(name, value)
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InputError(f"{name}: not a JSON value: {error}", file=name) from None


def _fix_texts(fix: Mapping[str, Any] | Sequence[str] | None, name: str = "fix") -> list[str]:
    if fix is None:
        return []
    if isinstance(fix, Mapping):
        return [f"{path}={_value_text(name, value)}" for path, value in _args.mapping(name, fix).items()]
    if isinstance(fix, (str, bytes)) or not isinstance(fix, Sequence):
        raise _args.refuse(name, "a mapping {field: value} or a list of 'field=value' strings", fix)
    return _args.texts(name, fix)


def _grid_texts(grid: Mapping[str, Sequence[Any]] | Sequence[str]) -> list[str]:
    if isinstance(grid, Mapping):
        texts = []
        for path, values in _args.mapping("grid", grid).items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                raise _args.refuse(f"grid[{path!r}]", "a list of values", values)
            texts.append(f"{path}=" + ",".join(_value_text("grid", v) for v in values))
        return texts
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence):
        raise _args.refuse("grid", "a mapping {field: [values]} or a list of 'field=v1,v2' strings", grid)
    return _args.texts("grid", grid)


def _margin_text(margin: float | str) -> str:
    """``memory_margin`` as the library parses it ("10%" or a share such as 0.1), checked here so
    that a bad value names the keyword whatever the core would make of it."""
    if isinstance(margin, str):
        digits = margin[:-1] if margin.endswith("%") else margin
        try:
            share = float(digits) / (100 if margin.endswith("%") else 1)
        except ValueError:
            share = math.nan
        if not math.isfinite(share) or not 0 <= share <= 0.5:
            raise InputError(f"memory_margin: expected a share of HBM from 0 to 0.5 or '0%' to '50%', got {margin!r}",
                             file="memory_margin")
        return margin
    return repr(_args.real("memory_margin", margin, 0.0, 0.5))


def _jobs(jobs: int | None) -> int:
    return _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS) or os.cpu_count() or 1


def _plan_options(gpus: int, objective: str, fixes: list[str], flow_top: int, top: int, flow_sample: str, margin: str,
                  exhaustive: bool, jobs: int, index: int, count: int) -> _core.PlanOptions:
    """The one options object _core.plan takes; its setters parse the texts and name a bad one."""
    options = _core.PlanOptions()
    options.gpus = gpus or None
    options.objective = objective
    options.fixes = fixes
    options.flow_top = flow_top
    options.top = top
    options.flow_sample = flow_sample
    options.memory_margin = margin
    options.exhaustive = exhaustive
    options.jobs = jobs
    options.shard_index = index
    options.shard_count = count
    return options


def _plan_shard(portable, *args) -> str:
    # One shard of one is the whole plan, its best `top` (more shards write every candidate);
    # a shard crosses back from its worker as its JSON text.
    return _core.plan(_rebuild(portable), _plan_options(*args), default_context()._core).to_json()


def _sweep_shard(portable, grid: list[str], jobs: int, index: int, count: int) -> str:
    return _core.sweep(_rebuild(portable), default_context()._core, grid, jobs, index, count).to_json()


def _on_workers(client: Any, task: Callable[..., str], args: tuple, jobs: int | None) -> list[str]:
    """One shard per worker, each with the worker's threads (or ``jobs``); the shards' JSON texts."""
    workers = client.scheduler_info()["workers"]
    if not workers:
        raise InputError("client: the Dask cluster has no workers", file="client")
    threads = [w.get("nthreads", 1) for w in workers.values()]
    count = len(workers)
    futures = [client.submit(task, *args, jobs or max(1, min(threads)), i, count, pure=False) for i in range(count)]
    return client.gather(futures)


# ---- the calls ----

# As the command's --top and --flow-top (src/ctwin/cli/plan_command.cpp).
MAX_TOP = 1_000_000
MAX_FLOW_TOP = 100_000


def plan(scenario: Scenario | str | os.PathLike, gpus: int | None = None, top: int = 10, objective: str = "throughput",
         fix: Mapping[str, Any] | Sequence[str] | None = None, flow_top: int = 32, jobs: int | None = None,
         client: Any = None, context: EvalContext | None = None, flow_sample: str = "full",
         memory_margin: float | str = "10%", placement: str | Mapping | None = None,
         exhaustive: bool = False) -> PlanResult:
    """The best splits of ``scenario``'s model on its cluster, GPU count and global batch
    (``ctwin plan``): every valid split that fits in memory ranked on the analytical network,
    the best ``flow_top`` again on the shared flow fabric.

    ``gpus``: plan for this many GPUs instead of the scenario's. ``top``: results kept.
    ``objective``: "throughput" (tokens/s) or "mfu". ``fix``: fields narrowed to one value
    (``{"parallel.tp": 8, "parallel.recompute": "selective"}``, or ``["parallel.tp=8"]``) or
    other scenario fields set (``{"training.global_batch": 512}``), as ``--fix``.
    ``jobs``: candidates simulated at once (default: one per core; per worker with a client).
    ``client``: a ``dask.distributed.Client``; the candidates are cut into one shard per worker
    and merged here, giving the same result as a local run. ``context``: caches for a local
    run (workers use their own). ``flow_sample``: "full" (the exact flow phase), or the opt-in
    approximations "su" and "replica" of ``--flow-sample`` (one scalable unit or one DP replica
    of each stage on the fabric; their measured errors are in docs/plan.md); the JSON then
    carries ``flow_sample``. ``memory_margin``: the share of each GPU's HBM the memory rule keeps
    free ("10%" or 0.1, the default; 0: the memory model alone; docs/plan.md says why).
    ``placement``: where every candidate runs, as ``ctwin plan --placement`` and :func:`ctwin.run`'s
    ``placement`` (a policy name or the scenario's placement object, e.g. ``{"policy": "spread",
    "build_nodes": 32}`` or ``{"nodes": [0, 9, 17, 30]}``); the JSON then carries ``placement``, and
    candidates the placement cannot hold count under the rule ``placement``. ``exhaustive``:
    replay every candidate whatever its step-time bound (``--exhaustive``; the same results, slower).
    :attr:`PlanResult.calibrated` says whether the figures rest on a calibrated GPU profile.

    Returns a :class:`PlanResult` whose :meth:`~PlanResult.to_json` is what ``ctwin plan
    --format json`` prints. Raises :class:`ctwin.InputError` on bad input, including
    constraints that leave no split (naming the rule that removed the last candidates).
    """
    if gpus is not None:
        _gpus(gpus)
    top = _args.integer("top", top, 1, MAX_TOP)
    flow_top = _args.integer("flow_top", flow_top, 0, MAX_FLOW_TOP)
    objective = _args.text("objective", objective)
    flow_sample = _args.text("flow_sample", flow_sample)
    fixes = _fix_texts(fix)
    margin = _margin_text(memory_margin)
    jobs = _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS)
    exhaustive = _args.flag("exhaustive", exhaustive)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    s = _placed(_scenario(scenario), placement)
    if client is None:
        options = _plan_options(gpus or 0, objective, fixes, flow_top, top, flow_sample, margin, exhaustive, _jobs(jobs), 0, 1)
        return PlanResult(_core.plan(s._core, options, ctx._core))
    if objective not in ("throughput", "mfu"):  # before the workers, which would each refuse it
        raise InputError(f"objective: unknown objective {objective!r} (expected throughput or mfu)", file="objective")
    if flow_sample not in ("full", "su", "replica"):  # before the workers, which would each refuse it
        raise InputError(f"flow_sample: unknown sample {flow_sample!r} (expected full, su or replica)", file="flow_sample")
    shards = _on_workers(client, _plan_shard,
                         (_portable(s), gpus or 0, objective, fixes, flow_top, top, flow_sample, margin, exhaustive), jobs)
    return PlanResult(shards[0] if len(shards) == 1 else _core.merge_plans(shards, top))


def sweep(scenario: Scenario | str | os.PathLike, grid: Mapping[str, Sequence[Any]] | Sequence[str],
          jobs: int | None = None, client: Any = None, context: EvalContext | None = None,
          placement: str | Mapping | None = None) -> SweepResult:
    """One training step per point of ``grid`` (``ctwin sweep``): every combination of the
    fields' values, the first field varying slowest.

    ``grid``: ``{"parallel.tp": [1, 2, 4, 8], "cluster.server.nics.bandwidth": ["400Gbps",
    "800Gbps"]}`` (any scenario or topology field; quantities with their unit), or
    ``["parallel.tp=1,2,4,8"]`` as ``--grid`` takes them. Set other fields, the network or a
    calibration on the scenario first (:meth:`Scenario.with_`). ``jobs``: points simulated at
    once (default: one per core; per worker with a client). ``client``: a
    ``dask.distributed.Client``; the points are cut into one shard per worker and merged here,
    giving the same result as a local run. ``context``: caches for a local run. ``placement``:
    where the job sits at every point, as ``ctwin sweep --placement`` and :func:`ctwin.run`'s.

    Returns a :class:`SweepResult` whose :meth:`~SweepResult.to_json` is what ``ctwin sweep
    --format json`` prints. A value that cannot stand alone (an unknown field, a bandwidth
    without its unit) raises :class:`ctwin.InputError`; a combination that cannot run is a
    point with ``invalid`` set.
    """
    texts = _grid_texts(grid)
    if not texts:
        raise InputError("grid: at least one field and its values are required", file="grid")
    jobs = _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    s = _placed(_scenario(scenario), placement)
    if client is None:
        return SweepResult(_core.sweep(s._core, ctx._core, texts, _jobs(jobs), 0, 1))
    shards = _on_workers(client, _sweep_shard, (_portable(s), texts), jobs)
    if len(shards) == 1:
        return SweepResult(shards[0])
    return SweepResult(_core.merge_sweeps(shards))
