"""Acceptance tests of a build: what each should show when healthy, and which parts fall short."""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

import pandas as pd

from . import _args, _core
from .build import _changes, _cluster, _context, _gpus, _routed
from .context import EvalContext


class AcceptanceResult:
    """What ``ctwin accept`` reports: ``expected`` (a frame of every test point with its expected
    value and pass threshold), and after a check ``measured`` (each point beside its expectation,
    ``pass``), ``suspects`` and ``explanation`` (parts ranked by how well a degraded part explains
    the measurements), ``failed``, and the verdict: ``verdict`` ("accepted", "not_accepted" or
    "incomplete": accepted only when every test of the plan was measured and every point passed),
    ``verdict_text``, ``tests_measured`` of ``tests_in_plan``, ``coverage`` (a frame, one row per
    test: measured, partial, missing or outside_plan); ``markdown`` is the page to sign;
    ``to_dict()`` the command's JSON."""

    def __init__(self, report: dict[str, Any] | _core.AcceptReport, markdown: str) -> None:
        #: The ``ctwin._core.AcceptReport`` behind this result (None when built from a dict).
        self.native = report if isinstance(report, _core.Report) else None
        report = report.to_dict() if self.native is not None else report
        self._report = report
        self.markdown = markdown
        self.expected = pd.DataFrame(report["expected"])
        self.measured = pd.DataFrame(report.get("measured", []))
        self.suspects = pd.DataFrame(report.get("suspects", []), columns=["part", "term", "share", "score", "explained",
                                                                          "failures_crossed"])
        self.explanation = pd.DataFrame(report.get("explanation", []), columns=self.suspects.columns)
        self.failed = report.get("failed", 0)
        self.verdict = report.get("verdict")
        self.verdict_text = report.get("verdict_text")
        self.tests_in_plan = report.get("tests_in_plan")
        self.tests_measured = report.get("tests_measured")
        self.coverage = pd.DataFrame(report.get("coverage", []),
                                     columns=["test", "kind", "status", "unit", "units", "covered", "points", "outside_plan",
                                              "missing", "missing_count"])

    def to_dict(self) -> dict[str, Any]:
        return self._report

    def __repr__(self) -> str:
        checked = f", {self.verdict_text}" if "measured" in self._report else ""
        return (f"AcceptanceResult({self._report['cluster']}, {self._report['gpus']} GPUs, "
                f"{len(self.expected)} expected points{checked})")


def accept(cluster: str | os.PathLike, gpus: int, plan: str | os.PathLike = "scenarios/acceptance/default.json",
           measured: str | os.PathLike | None = None, degraded: Sequence[str] | None = None, noise: float = 0.0,
           seed: int = 1, jobs: int | None = None, changes: Mapping[str, Any] | None = None,
           calibration: str | os.PathLike | None = None, show: str = "failures",
           context: EvalContext | None = None, routing: str | None = None) -> AcceptanceResult:
    """Expected value and pass threshold of every test of ``plan`` on the first ``gpus`` GPUs of
    ``cluster`` (``ctwin accept``). ``measured``: a folder of what the tests printed (CSV
    test,instance,value[,unit]; nccl-tests ``<test>.log``; ib_send_bw/osu ``<test>.<SRC>-<DST>.txt``),
    checked against the expectations. ``degraded``: instead of a folder, check the measured set the
    build would give with these parts degraded ("nic:12=0.25", "link:leaf3.up5=0.5",
    "leaf:3=uplinks:0.5", "gpu:7=0.8"; an empty list for the healthy build), each value times
    1 + u, u uniform in [-noise, noise] from ``seed``. ``show``: what ``markdown`` lists of a check
    ("summary", "failures" or "all", as ``ctwin accept --show``); the frames always hold everything.
    ``routing``: "ecmp" or "adaptive" for the topology's ``fabric.routing`` (as ``--routing``).
    """
    changes = _routed(changes, routing)
    jobs = _args.optional_integer("jobs", jobs, 1, _args.MAX_JOBS)
    options = _args.options(
        _core.AcceptOptions, cluster=_cluster(cluster), gpus=_gpus(gpus), changes=_changes(changes),
        calibration=_args.optional_path("calibration", calibration), plan=_args.path("plan", plan),
        measured=_args.optional_path("measured", measured), degraded=_args.texts("degraded", degraded),
        synthesize=degraded is not None, noise=_args.real("noise", noise, 0.0, 0.5),
        seed=_args.integer("seed", seed, 0, _args.INT64_MAX), jobs=jobs or os.cpu_count() or 1,
        show=_args.text("show", show, ["summary", "failures", "all"]))
    report, markdown = _core.accept(options, _context(context)._core)
    return AcceptanceResult(report, markdown)
