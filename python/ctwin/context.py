"""Evaluation contexts: the caches many evaluations share."""

from __future__ import annotations

from . import _core


class EvalContext:
    """Built fabrics and collective predictions shared by evaluations of nearby scenarios.

    Results never depend on the context: a cached value is the one a fresh evaluation
    computes. Thread-safe; one context may serve many threads. Every call takes
    ``context=``; without it, calls share one context per process.
    """

    __slots__ = ("_core",)

    def __init__(self):
        self._core = _core.EvalContext()

    def counts(self) -> dict:
        """How much was built and reused: fabrics_built, fabric_reuses, collective_caches."""
        return self._core.counts()


_default = EvalContext()


def default_context() -> EvalContext:
    """The context calls share when given none."""
    return _default
