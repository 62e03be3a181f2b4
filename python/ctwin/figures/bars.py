"""Stacked bars: where a step's time goes, one bar per option (the step breakdown), and the same
drawing for any whole split into parts (capex by category)."""

from __future__ import annotations

from typing import Mapping

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import from_zero, legend_outside, new_figure

#: The parts of a step in the order a reader follows them, as the JSON report names them.
STEP_PARTS = ("compute", "recompute", "bubble", "exposed tp", "exposed pp", "exposed dp", "exposed cp", "exposed ep",
              "optimizer")


def step_parts(report: Mapping) -> dict[str, float]:
    """The seconds of each part of one step, from `ctwin run --format json` (or StepResult.to_dict())."""
    b = report["breakdown"]
    parts = {"compute": b["compute_s"], "bubble": b["bubble_s"], "optimizer": b["optimizer_s"]}
    for stream, seconds in b["exposed_comm_s"].items():
        parts[f"exposed {stream}"] = seconds
    return {p: parts[p] for p in STEP_PARTS if p in parts}


def draw_stacked(ax: Axes, rows: Mapping[str, Mapping[str, float]], xlabel: str) -> None:
    """One horizontal bar per row, its parts stacked left to right; parts that are zero in every
    row are left out of the bars and the legend."""
    names = list(rows)
    parts = [p for p in dict.fromkeys(p for r in rows.values() for p in r) if any(r.get(p, 0) for r in rows.values())]
    left = [0.0] * len(names)
    for part in parts:
        widths = [rows[n].get(part, 0.0) for n in names]
        ax.barh(names, widths, left=left, label=part, height=0.6)
        left = [a + b for a, b in zip(left, widths)]
    ax.set_ylim(len(names) - 0.5, -0.5)  # the first row on top, as a table reads (idempotent on shared axes)
    ax.set_xlabel(xlabel)
    from_zero(ax, "x")
    legend_outside(ax)


def breakdown_bars(rows: Mapping[str, Mapping[str, float]], title: str = "") -> Figure:
    """Seconds per step by part, one bar per option (a mapping of option name to step_parts())."""
    fig, (ax,) = new_figure(7.5, 1.4 + 0.45 * len(rows))
    draw_stacked(ax, rows, "time per step (s)")
    ax.set_ylabel("option")
    ax.set_title(title or "where the step goes")
    return fig


def stacked_bars(panels: Mapping[str, Mapping[str, Mapping[str, float]]], title: str = "") -> Figure:
    """Side-by-side panels of stacked bars over the same rows: panels maps an x label (with its
    unit) to rows as draw_stacked() takes them, e.g. capex and power by category per build option."""
    rows = max((len(r) for r in panels.values()), default=1)
    fig, axes = new_figure(5.5 * len(panels), 1.4 + 0.4 * rows, 1, len(panels), sharey=True)
    for ax, (xlabel, data) in zip(axes, panels.items()):
        draw_stacked(ax, data, xlabel)
    axes[0].set_ylabel("option")
    if title:
        fig.suptitle(title)
    return fig
