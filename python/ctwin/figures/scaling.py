"""Linearity and MFU against GPU count, from `ctwin scale` (a scaling study's points)."""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.figure import Figure

from .style import from_zero, log_axis, new_figure


def linearity_mfu(points: Sequence[Mapping], title: str = "") -> Figure:
    """points: dicts of gpus, linearity (a fraction) and mfu (a fraction), one per size; sizes
    that could not run (no linearity, as `ctwin scale` reports an invalid size) are left out."""
    points = [p for p in points if p.get("linearity") is not None and p.get("mfu") is not None]
    gpus = [p["gpus"] for p in points]
    fig, axes = new_figure(8.0, 3.4, 1, 2)
    for ax, key, label in ((axes[0], "linearity", "linearity (% of ideal scaling)"), (axes[1], "mfu", "MFU (%)")):
        ax.plot(gpus, [100 * p[key] for p in points], marker="o")
        log_axis(ax, "x", base=2)
        ax.set_xticks(gpus)
        ax.set_xlabel("cluster size (GPUs)")
        ax.set_ylabel(label)
        ax.set_ylim(0, 105 if key == "linearity" else None)
        from_zero(ax, "y")
    axes[0].set_title("linearity")
    axes[1].set_title("model FLOPs utilization")
    if title:
        fig.suptitle(title)
    return fig
