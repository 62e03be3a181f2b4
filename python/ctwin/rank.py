"""Where one named split ranks in a plan (``ctwin plan --rank-of``), exactly, without replaying the
whole plan: the named split is replayed, then only the candidates whose step-time lower bound
could rank ahead of it (docs/plan.md, "The rank of one split")."""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from . import _args, _core
from .context import EvalContext, default_context
from .plan import _fix_texts, _jobs, _margin_text, _scenario
from .results import _TextReport
from .scenario import Scenario


class SplitRank(_TextReport):
    """One split's rank in a plan: ``rank`` (1-based, the analytical ranking's, ``None`` when the
    split is not a valid candidate), ``valid`` (candidates ranked), ``not_valid`` (``None``, or
    ``{"rule", "message"}``: the plan rule that removed it, "replay" when the replay refused it),
    ``named`` and ``best`` (results as ``ctwin plan`` writes them, ``why`` against the best, with
    their p10–p90 ``error_band`` and, for a named split after the best, ``distinguishable_from_best``),
    ``error_band`` (the band classes, as the plan's),
    ``search`` (``bounded``: candidates whose bound was computed, ``replayed``), and the plan's
    ``model``, ``gpus``, ``global_batch``, ``fixes``, ``key``, ``enumerated``, ``survivors``.
    :meth:`to_json` is what ``ctwin plan --rank-of ... --format json`` prints."""

    __slots__ = ()

    @property
    def speedup(self) -> float | None:
        """How much faster the best is predicted to be: best tokens/s over the named split's, minus 1
        (``None`` when the split is not valid)."""
        if self._report["named"] is None or self._report["rank"] is None:
            return None
        return self._report["best"]["analytical"]["tokens_per_s"] / self._report["named"]["analytical"]["tokens_per_s"] - 1


def rank_split(scenario: Scenario | str | os.PathLike, key: Mapping[str, Any] | Sequence[str],
               fix: Mapping[str, Any] | Sequence[str] | None = None, gpus: int | None = None,
               objective: str = "throughput", jobs: int | None = None,
               context: EvalContext | None = None, memory_margin: float | str = "10%") -> SplitRank:
    """The rank of the split ``key`` in the plan of ``scenario`` (same model, cluster, GPUs,
    global batch and ``fix`` as :func:`ctwin.plan`), on the analytical network.

    ``key``: the split by the names of a plan result's ``split`` (``{"tp": 4, "pp": 8, "vpp": 1,
    "ep": 1, "pipeline_accounting": False}``, or ``["tp=4", "pp=8"]``); with ``fix`` it must name
    one candidate. The rank equals the split's position in the exhaustive plan, ties included.
    ``memory_margin``: as :func:`ctwin.plan`'s.

    Raises :class:`ctwin.InputError` naming ``--rank-of`` and the field for a key outside the
    plan's space or naming several candidates.
    """
    gpus = _args.optional_integer("gpus", gpus, 1, _args.MAX_GPUS)
    if key is None:
        raise _args.refuse("key", "a mapping {field: value} or a list of 'field=value' strings", key)
    keys = _fix_texts(key, "key")
    fixes = _fix_texts(fix)
    objective = _args.text("objective", objective)
    jobs = _jobs(jobs)
    ctx = _args.instance("context", context, EvalContext, "an EvalContext") or default_context()
    s = _scenario(scenario)
    return SplitRank(_core.rank_split(s._core, ctx._core, gpus or 0, objective, fixes, keys, jobs,
                                      _margin_text(memory_margin)))
