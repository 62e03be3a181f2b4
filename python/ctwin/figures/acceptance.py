"""Acceptance of a build (`ctwin accept`): what each test should show when healthy, and by how
much the points that failed fell short."""

from __future__ import annotations

from collections import defaultdict
from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .busbw import draw_busbw
from .style import legend_outside, log_axis, new_figure, plural, reference


def acceptance_expected(expected: Sequence[Mapping], title: str = "") -> Figure:
    """expected: the report's expected points. Left, the p2p tests' expected bandwidth per path
    class (log: NVLink is ten times a NIC); right, the collectives' expected busbw per node count."""
    p2p = [e for e in expected if e["kind"] == "p2p" and e.get("unit") == "GB/s"]
    curves: dict[int, dict[str, list]] = defaultdict(lambda: {"size_bytes": [], "busbw_GBps": []})
    tests = sorted({e["test"] for e in expected if e["kind"] == "collective"})
    for e in expected:
        if e["kind"] == "collective":
            curves[e["nodes"]]["size_bytes"].append(e["size_bytes"])
            curves[e["nodes"]]["busbw_GBps"].append(e["expected"])
    fig, axes = new_figure(11.0, 3.8, 1, 2)
    left, right = axes
    names = [e["test"] for e in p2p]
    left.bar(names, [e["expected"] for e in p2p], color="tab:blue", label="expected")
    left.bar(names, [e["threshold"] for e in p2p], color="none", edgecolor="black", linestyle="--",
             label="pass threshold")
    log_axis(left, "y", dense=True)
    left.set_ylabel("bandwidth, one pair alone (GB/s)")
    left.set_xlabel("path class (test)")
    left.tick_params(axis="x", labelrotation=20, labelsize=7)
    left.set_title("p2p per path class")
    legend_outside(left)
    draw_busbw(right, [{"label": plural(n, "node"), **c} for n, c in sorted(curves.items())])
    right.set_title(f"{', '.join(tests) or 'collectives'}, expected")
    if title:
        fig.suptitle(title)
    return fig


def shortfall(measured: Sequence[Mapping], title: str = "") -> Figure:
    """measured: the report's measured points (pass, measured, expected, test). A histogram of
    measured / expected of the failed points, stacked per test, the pass thresholds' 1.0 marked."""
    failed: dict[str, list[float]] = defaultdict(list)
    for m in measured:
        if not m["pass"] and m["expected"]:
            failed[m["test"]].append(m["measured"] / m["expected"])
    fig, (ax,) = new_figure(7.0, 3.6)
    tests = sorted(failed)
    if tests:
        ax.hist([failed[t] for t in tests], bins=20, stacked=True, label=[f"{t} ({plural(len(failed[t]), 'point')})"
                                                                           for t in tests])
    reference(ax.axvline(1.0, color="black", lw=0.8, linestyle=":", label="as expected"))
    ax.set_xlim(0, max(1.05, ax.get_xlim()[1]))
    ax.set_xlabel("measured / expected (ratio), failed points")
    ax.set_ylabel("failed points (count)")
    ax.set_title(title or f"what fell short: {plural(sum(map(len, failed.values())), 'failed point')}")
    legend_outside(ax)
    return fig
