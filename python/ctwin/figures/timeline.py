"""The pipeline timeline: the compute of every simulated pipeline rank over one step, forward
and backward passes in their own colours, from the Chrome trace `ctwin run --trace` writes."""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import legend_outside, new_figure

_PASS_COLOURS = {"forward": "tab:blue", "backward": "tab:orange"}


def compute_intervals(trace: Mapping) -> dict[int, dict[str, list[tuple[float, float]]]]:
    """(start, duration) in ms of the busy spans of compute, per pipeline rank and pass."""
    streams = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            streams[(e["pid"], e["tid"])] = e["args"]["name"]
    out: dict[int, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and streams.get((e["pid"], e["tid"])) == "compute":
            kind = e.get("args", {}).get("pass", "") or "other"
            out[e["pid"]][kind].append((e["ts"] / 1e3, e["dur"] / 1e3))
    # Kernels of one pass follow each other without a gap: one bar per run of them draws the same
    # picture with a hundredth of the shapes (a 1.5 MB SVG of one step becomes tens of kB).
    return {stage: {kind: _merged(spans) for kind, spans in kinds.items()} for stage, kinds in out.items()}


def _merged(spans: list[tuple[float, float]], gap_ms: float = 1e-3) -> list[tuple[float, float]]:
    merged: list[list[float]] = []
    for start, duration in sorted(spans):
        if merged and start <= merged[-1][0] + merged[-1][1] + gap_ms:
            merged[-1][1] = max(merged[-1][1], start + duration - merged[-1][0])
        else:
            merged.append([start, duration])
    return [(a, b) for a, b in merged]


def draw_timeline(ax: Axes, trace: Mapping, title: str = "") -> None:
    """Compute per pipeline stage over one step: what the bubble looks like."""
    intervals = compute_intervals(trace)
    stages = sorted(intervals)
    for stage in stages:
        for kind in sorted(intervals[stage], key=lambda k: (k not in _PASS_COLOURS, k)):
            ax.broken_barh(intervals[stage][kind], (stage - 0.4, 0.8), color=_PASS_COLOURS.get(kind, "tab:gray"),
                           label=kind)
    ax.set_yticks(stages, [f"stage {s}" for s in stages])
    ax.set_ylim(max(stages, default=0) + 0.6, -0.6)
    ax.set_xlim(0, None)
    ax.set_ylabel("pipeline stage")
    ax.set_xlabel("time in the step (ms)")
    ax.set_title(title or "compute per pipeline stage, one step")
    legend_outside(ax)


def pipeline_timeline(trace: Mapping, title: str = "") -> Figure:
    """draw_timeline() as a figure of its own."""
    fig, (ax,) = new_figure(8.0, 1.3 + 0.45 * len(compute_intervals(trace)))
    draw_timeline(ax, trace, title)
    return fig
