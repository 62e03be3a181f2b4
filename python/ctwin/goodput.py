"""A training run's life under failures, checkpoints, spares and stragglers (``ctwin goodput``)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import pandas as pd

from . import _args, _core
from .context import EvalContext, default_context
from .errors import InputError
from .results import _TextReport
from .scenario import Scenario, as_scenario


class GoodputResult(_TextReport):
    """A goodput study (``ctwin goodput``): Monte Carlo over runs of ``days`` days.

    Fields: ``ettr``, ``goodput`` and ``interruptions`` (each ``mean``, ``stddev``, ``p5``,
    ``p50``, ``p95``), ``interval_s`` (the checkpoint interval simulated), ``young_daly_interval_s``,
    ``formula_ettr``, ``expected_interruptions``, ``mtbf_h``, ``mttr_h``, ``availability``,
    ``pool_dry_probability``, ``checkpoint``, ``spares``, ``step_time_s`` and the rest of
    :meth:`to_dict`, which equals ``ctwin goodput --format json``; :meth:`to_json` is its text.
    """

    __slots__ = ()

    @property
    def causes(self) -> pd.DataFrame:
        """Interruptions by cause: rate per unit-hour, units, what a failure takes, expected and simulated per run."""
        return pd.DataFrame(self._report["causes"])

    @property
    def time(self) -> pd.DataFrame:
        """Where a run's time went: hours per run and share of the run, summing to the run's length."""
        t = self._report["time_h_per_run"]
        parts = [("training kept", t["useful"]), ("checkpoint writes", t["checkpoint"]), ("lost work", t["lost_work"]),
                 ("detection", t["detection"]), ("waiting for spares", t["waiting_for_spares"]),
                 ("spare switchover", t["switchover"]), ("restart", t["restart"])]
        if "stragglers" in t:
            parts.append(("throttled GPUs", t["stragglers"]))
        frame = pd.DataFrame(parts, columns=["where", "hours"])
        frame["share"] = frame["hours"] / (24 * self._report["days"])
        return frame

    @property
    def interval_search(self) -> pd.DataFrame:
        """The simulated ETTR per checkpoint interval (``interval_s``, ``ettr``); empty when the interval was given."""
        search = self._report.get("interval_search")
        return pd.DataFrame(search["grid"] if search else [], columns=["interval_s", "ettr"])

    @property
    def shrunk_jobs(self) -> pd.DataFrame:
        """With ``on_empty="shrink"``: the twin's step of the job at each replica count it ran with."""
        return pd.DataFrame(self._report.get("shrunk_jobs", []))

    @property
    def straggler_stages(self) -> pd.DataFrame:
        """With stragglers: each pipeline stage an event hit, its step time with a GPU throttled and the effect."""
        return pd.DataFrame(self._report.get("stragglers", {}).get("stages", []))


def _count_text(name: str, value: Any) -> str:
    """A spare count: an int, or text such as "5%" or "2/su"."""
    return _args.text(name, value) if isinstance(value, str) else str(_args.integer(name, value, 0, _args.MAX_GPUS))


def goodput(scenario: Scenario | str | os.PathLike, days: float, checkpoint_interval: str = "auto",
            spares: str | int = "5%", cold_spares: str | int = 0, hot_swap: str = "30s", cold_swap: str = "2h",
            on_empty: str = "wait", storage: str = "auto", reliability: str | os.PathLike | None = None,
            fp32_master: bool = True, step_time: str | None = None, straggler_rate: str = "0/h",
            straggler_speed: float = 0.8, straggler_duration: str = "30min", runs: int = 1000, seed: int = 1,
            network: str | None = None, changes: Mapping[str, Any] | None = None,
            context: EvalContext | None = None, storage_file: str | os.PathLike | None = None) -> GoodputResult:
    """Simulates ``runs`` training runs of ``days`` days of ``scenario`` under failures, as ``ctwin goodput``.

    ``scenario``: a scenario file, a bundled name or a :class:`Scenario` (loaded or built in
    memory with :meth:`Scenario.from_dict`; its changes apply).
    ``checkpoint_interval``: training time between checkpoints ("30min") or "auto" (the simulated
    best, beside Young/Daly's). ``spares``: hot spare nodes, "16", "5%" or "2/su";
    ``cold_spares`` likewise; ``hot_swap``/``cold_swap``: switchover times. ``on_empty``: "wait"
    for a repair or "shrink" (the smaller job's step from the twin). ``storage``: "pfs",
    "nvme-async" or "peer-memory", tiers of ``storage_file`` (default the bundled
    models/reliability/storage.json, as ``--storage-file``), "cluster:NAME" (a shared tier of the
    scenario's cluster storage) or "auto" (that tier where the cluster's storage gives a write
    rate, else "pfs"). ``step_time``: e.g. "8.5s" instead of simulating the step.
    ``straggler_rate``: GPU throttling events per GPU-hour ("1e-4/h"; an assumption, no fleet
    publishes one), each a GPU at ``straggler_speed`` for ``straggler_duration``. ``network`` and
    ``changes`` as ``--network`` and ``--set``. Errors name the command's flags (``--spares``).

    Returns a :class:`GoodputResult`. Raises :class:`ctwin.InputError` on bad input.
    """
    options = _core.GoodputOptions()
    options.days = _args.real("days", days, 0.0, 1e6)
    options.interval = _args.text("checkpoint_interval", checkpoint_interval)
    for name, value in (("hot_swap", hot_swap), ("cold_swap", cold_swap), ("on_empty", on_empty), ("storage", storage),
                        ("straggler_rate", straggler_rate), ("straggler_duration", straggler_duration)):
        setattr(options, name, _args.text(name, value))
    options.spares = _count_text("spares", spares)
    options.cold_spares = _count_text("cold_spares", cold_spares)
    options.step_time = _args.optional_text("step_time", step_time)
    extra = []
    for k, v in _args.mapping("changes", changes).items():
        try:
            extra.append(f"{k}={v}" if isinstance(v, str) else f"{k}={json.dumps(v, allow_nan=False)}")
        except (TypeError, ValueError) as error:
            raise InputError(f"changes: {k}: not a JSON value: {error}", file="changes") from None
    if network is not None:
        extra.append(f"network={_args.text('network', network)}")
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    options.fp32_master = _args.flag("fp32_master", fp32_master)
    options.straggler_speed = _args.real("straggler_speed", straggler_speed, 0.0, 1.0)
    options.runs = _args.integer("runs", runs, 1, 1_000_000)
    options.seed = _args.integer("seed", seed, 0, (1 << 64) - 1)
    # Files left out (None or "") keep the library's defaults, the bundled models/reliability ones.
    for name, value in (("reliability", reliability), ("storage_file", storage_file)):
        given = _args.optional_path(name, value)
        if given:
            setattr(options, name, given)
    job = as_scenario(scenario)._core
    if extra:
        job = job.with_assignments(extra)
    return GoodputResult(_core.goodput(job, options, ctx._core))
